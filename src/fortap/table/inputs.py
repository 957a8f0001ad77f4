"""Which files under the paths a user names hold tables: Table JSONL and HiTab JSON.

Folders are searched recursively in sorted order. An ingest output folder holds
`tables.jsonl` and its `report.json`; that report is not a table, so a `.json` file lying beside
a `tables.jsonl` named `report.json` is left out. A file named directly is always taken.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fortap.errors import FortapError

INGEST_REPORT = "report.json"


def table_inputs(paths: Iterable[str | Path]) -> tuple[list[Path], list[Path]]:
    """(Table JSONL files, HiTab JSON files) named by `paths`, each list without repeats."""
    jsonl: list[Path] = []
    hitab: list[Path] = []
    names = [Path(p) for p in paths]
    for path in names:
        if not path.exists():
            raise FortapError(f"table input not found: {path}")
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and not _ingest_report(p))
        else:
            found = [path]
        jsonl += [p for p in found if p.suffix.lower() == ".jsonl"]
        hitab += [p for p in found if p.suffix.lower() == ".json"]
    if not jsonl and not hitab:
        raise FortapError(f"no Table JSONL or HiTab JSON files in {', '.join(map(str, names))}")
    return list(dict.fromkeys(jsonl)), list(dict.fromkeys(hitab))


def _ingest_report(path: Path) -> bool:
    return path.name == INGEST_REPORT and (path.parent / "tables.jsonl").exists()
