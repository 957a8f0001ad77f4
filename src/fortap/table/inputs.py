"""Which files under the paths a user names hold tables: Table JSONL and HiTab JSON.

Folders are searched recursively in sorted order. An ingest output folder holds `tables.jsonl`
(a folder of `part-NNNNN.jsonl` shards, or one file from before shards) beside its records:
`report.json`, `ingest.json` and the task markers `tasks/NNNNN.json`. Those are not tables, so
in a folder walk they are left out. A file named directly is always taken.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fortap.errors import FortapError
from fortap.outputs import MARKER

INGEST_TABLES = "tables.jsonl"
INGEST_RECORDS = frozenset({"report.json", "ingest.json"})


def table_inputs(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """(Table JSONL files, HiTab JSON files) named by `paths`, each list without repeats."""
    jsonl: list[Path] = []
    hitab: list[Path] = []
    names = [Path(p) for p in paths]
    for path in names:
        if not path.exists():
            raise FortapError(f"table input not found: {path}")
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and not _ingest_record(p))
        else:
            found = [path]
        jsonl += [p for p in found if p.suffix.lower() == ".jsonl"]
        hitab += [p for p in found if p.suffix.lower() == ".json"]
    if not jsonl and not hitab:
        raise FortapError(f"no Table JSONL or HiTab JSON files in {', '.join(map(str, names))}")
    return list(dict.fromkeys(jsonl)), list(dict.fromkeys(hitab))


def _ingest_record(path: Path) -> bool:
    """A record of an ingest run (its report, plan or a task marker) or a folder's output
    marker (`outputs.MARKER`), not a table."""
    if path.suffix.lower() != ".json":
        return False
    if path.name == MARKER:
        return True
    if path.parent.name == "tasks":
        return (path.parent.parent / INGEST_TABLES).exists()
    return path.name in INGEST_RECORDS and (path.parent / INGEST_TABLES).exists()
