"""Where the benches read and write when no flag says otherwise, relative to this repository,
never an absolute folder of one machine: data from `../shared/data` beside the clone; outputs
and intermediate folders under the git-ignored `runs/`, among them `runs/tables` and
`runs/corpus`, what the README's `fortap ingest ... -o runs/tables` and
`fortap build-corpus runs/tables -o runs/corpus` write. Standard library only (the GPU machine
of `device_pair.py` reads it without fortap)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
RUNS = REPO / "runs"
TABLES = RUNS / "tables" / "tables.jsonl"  # `fortap ingest`'s shards
CORPUS = RUNS / "corpus"  # `fortap build-corpus`'s folder
