"""The worker side of `fortap ingest`: one file -> its report and Table JSON lines, and one
task of files -> a shard of `tables.jsonl/` and its marker.

`ingest_file(path)` never raises: a `SheetError` becomes a skipped report with its reason,
any other exception `internal_error` with its text. `ingest_task` converts the task's
.xls/.ods files in one LibreOffice call (one `soffice` start costs seconds; each file's own
read then finds its copy in the conversion cache), reads the files in order, writes their
tables to the task's shard and then the marker holding their reports, each through a
temporary file and a rename: a task killed midway leaves no shard or marker, and a task
run twice (a retried worker) writes the same bytes again.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from fortap.errors import SheetError
from fortap.ingest_report import FileReport, SheetSummary, summarize_table

TABLES = "tables.jsonl"  # the folder of shards, named as the one file it replaces reads
CONVERTED_SUFFIXES = frozenset({".xls", ".ods"})  # read through a LibreOffice conversion


@dataclass(frozen=True)
class FileResult:
    """A worker's answer for one file: its report and its tables as JSON lines."""

    report: FileReport
    lines: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class IngestTask:
    """Files [start, start + len(files)) of the run's input list, written to one shard."""

    index: int
    files: tuple[str, ...]
    width: int = 5  # digits of the shard and marker names, so that names sort as numbers

    @property
    def name(self) -> str:
        return f"{self.index:0{self.width}d}"

    @property
    def shard(self) -> str:
        return f"{TABLES}/part-{self.name}.jsonl"

    @property
    def marker(self) -> str:
        return f"tasks/{self.name}.json"


def ingest_task(task: IngestTask, out: str) -> dict:
    """Read the task's files into its shard, then write its marker; returns a small summary."""
    convert_ahead([Path(f) for f in task.files])
    root = Path(out)
    shard = root / task.shard
    shard.parent.mkdir(parents=True, exist_ok=True)
    temp = shard.with_name(shard.name + ".tmp")
    reports = []
    with temp.open("w", encoding="utf-8") as sink:
        for path in task.files:
            result = ingest_file(path)
            sink.writelines(line + "\n" for line in result.lines)
            reports.append(asdict(result.report))
    os.replace(temp, shard)
    record = {"task": task.index, "shard": task.shard, "bytes": shard.stat().st_size,
              "files": reports}  # fmt: skip
    write_json(root / task.marker, record)
    return {"task": task.index, "files": len(reports)}


def task_done(out: Path, task: IngestTask) -> bool:
    """The task's marker exists and its shard has the size the marker records."""
    marker = out / task.marker
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
        return (out / record["shard"]).stat().st_size == record["bytes"]
    except (OSError, ValueError, KeyError):
        return False


def ingest_file(path: str) -> FileResult:
    """Read one file and detect its tables; never raises (a failure is a skipped report)."""
    from fortap.sheet import read_workbook

    start = time.perf_counter()
    sheets, lines = [], []
    try:
        book = read_workbook(path)
        for sheet in book.sheets:
            summary, sheet_lines = ingest_sheet(sheet)
            sheets.append(summary)
            lines.extend(sheet_lines)
    except SheetError as err:
        return skipped(path, err.reason, str(err), start)
    except Exception as err:  # a bug met on one file must not stop the batch
        return skipped(path, "internal_error", f"{type(err).__name__}: {err}", start)
    report = FileReport(
        path=path,
        status="ok",
        sheets=tuple(sheets),
        skipped_sheets=tuple(tuple(s) for s in book.skipped_sheets),
        seconds=round(time.perf_counter() - start, 4),
    )
    return FileResult(report, tuple(lines))


def ingest_sheet(sheet) -> tuple[SheetSummary, list[str]]:
    """One sheet's summary and its tables' JSON lines; a detection failure is kept on the sheet."""
    from fortap.table import detect_tables

    cells = sum(not c.is_empty for c in sheet.cells.values())
    formulas = sum(1 for _ in sheet.formula_cells())
    base = SheetSummary(sheet.name, sheet.n_rows, sheet.n_cols, cells, formulas, 0)
    try:
        tables = detect_tables(sheet)
        lines = [table_line(t) for t in tables]
    except Exception as err:  # one sheet that trips detection must not lose the others
        reason = err.reason if isinstance(err, SheetError) else "internal_error"
        return replace(base, error=f"{reason}: {type(err).__name__}: {err}"), []
    summaries = tuple(summarize_table(t) for t in tables)
    in_tables = sum(t.formula_cells for t in summaries)
    return replace(base, table_formula_cells=in_tables, tables=summaries), lines


def table_line(table) -> str:
    """One Table as a JSON line (no newline) in the `fortap.table.io` format."""
    from fortap.table.io import table_to_json

    return json.dumps(table_to_json(table), ensure_ascii=False, separators=(",", ":"))


def convert_ahead(files: list[Path]) -> None:
    """Convert the .xls/.ods files among `files` in one LibreOffice call before they are read.

    A failure here is not final: the file's own read converts it again and reports what went
    wrong.
    """
    legacy = [p for p in files if p.suffix.lower() in CONVERTED_SUFFIXES and p.is_file()]
    if len(legacy) < 2:
        return
    from fortap.sheet import ReadLimits
    from fortap.sheet.convert import convert_to_xlsx

    with contextlib.suppress(Exception):  # each file's own read reports its own error
        convert_to_xlsx(legacy, ReadLimits())


def skipped(path: str, reason: str, message: str, start: float) -> FileResult:
    seconds = round(time.perf_counter() - start, 4)
    return FileResult(FileReport(path, "skipped", reason, message, seconds=seconds))


def write_json(path: Path, data) -> None:
    """Write JSON atomically (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temp, path)
