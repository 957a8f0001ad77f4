"""`run_ingest`: workbook files and folders -> Table JSON lines, with a report of what was read.

Folders are searched recursively for spreadsheet files (.xlsx .xlsm .xls .ods .csv .tsv);
files named on the command line are always tried, whatever their suffix. Each file is read
with `fortap.sheet.read_workbook`, its sheets' tables found with `fortap.table.detect_tables`.
The output folder gets two files:

- `tables.jsonl`: one Table per line in `fortap.table.io` JSON, files in input order (folders
  sorted by path), sheets in workbook order, tables in detection order. One file for the whole
  run: the corpus builder reads it as a stream, and several runs' files can be concatenated.
- `report.json`: per file `status` ("ok" or "skipped"), the `reason` key and `message` of a
  skip, per sheet its size, cells, formula cells and tables (region, header rows and columns,
  tree depths, first context line); then the files ignored in folders and the totals.

One bad file never stops a batch: a `SheetError` is recorded with its reason, any other
exception as `internal_error` with its text. With `workers > 1` files are read in a process
pool (one task per file); the parent writes results in input order, so the output does not
depend on the number of workers (except the `seconds` timings in the report).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path

from fortap.errors import FortapError, SheetError
from fortap.ingest_report import FileReport, IngestReport, SheetSummary, summarize_table

SPREADSHEET_SUFFIXES = frozenset({".xlsx", ".xlsm", ".xls", ".ods", ".csv", ".tsv"})
CONVERTED_SUFFIXES = frozenset({".xls", ".ods"})  # read through a LibreOffice conversion


@dataclass(frozen=True)
class IngestConfig:
    """How an ingest run reads its files."""

    workers: int = 1  # worker processes; 1 reads in this process
    progress: bool = True  # show a progress bar and print a summary

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"IngestConfig.workers must be >= 1, got {self.workers}")


@dataclass(frozen=True)
class FileResult:
    """A worker's answer for one file: its report and its tables as JSON lines."""

    report: FileReport
    lines: tuple[str, ...] = field(default=())


def expand_paths(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """(spreadsheet files to read, other files found in folders), each without repeats.

    Folders are walked recursively in sorted order; hidden files and Excel's `~$` lock files
    are not spreadsheets. A named file is kept whatever its suffix, so a wrong one is reported.
    """
    files: dict[Path, Path] = {}
    ignored: list[Path] = []
    for path in paths:
        if not path.is_dir():
            files.setdefault(path.resolve(), path)
            continue
        for found in sorted(p for p in path.rglob("*") if p.is_file()):
            name = found.name
            wanted = found.suffix.lower() in SPREADSHEET_SUFFIXES
            if wanted and not name.startswith(("~$", ".")):
                files.setdefault(found.resolve(), found)
            else:
                ignored.append(found)
    return list(files.values()), ignored


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
        return _skipped(path, err.reason, str(err), start)
    except Exception as err:  # a bug met on one file must not stop the batch
        return _skipped(path, "internal_error", f"{type(err).__name__}: {err}", start)
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


def run_ingest(
    paths: list[Path], out: Path, workers: int = 1, *, progress: bool = True
) -> IngestReport:
    """Ingest `paths` (files or folders) into `out/tables.jsonl` and `out/report.json`."""
    cfg = IngestConfig(workers=workers, progress=progress)
    start = time.perf_counter()
    files, ignored = expand_paths([Path(p) for p in paths])
    if not files:
        shown = ", ".join(str(p) for p in paths) or "(no paths)"
        raise FortapError(f"no spreadsheet files found in {shown}")
    out.mkdir(parents=True, exist_ok=True)
    convert_ahead(files, cfg)
    reports = []
    partial = out / "tables.jsonl.part"
    with partial.open("w", encoding="utf-8") as sink, _progress(cfg, len(files)) as advance:
        for result in _results([str(f) for f in files], cfg.workers):
            sink.writelines(line + "\n" for line in result.lines)
            reports.append(result.report)
            advance(result.report)
    os.replace(partial, out / "tables.jsonl")
    report = IngestReport(
        out, tuple(reports), tuple(str(p) for p in ignored), time.perf_counter() - start
    )
    text = json.dumps(report.to_json(), indent=1, ensure_ascii=False)
    (out / "report.json").write_text(text + "\n", encoding="utf-8")
    if cfg.progress:
        _print_summary(report)
    return report


def convert_ahead(files: list[Path], cfg: IngestConfig) -> None:
    """Convert the .xls/.ods files in a few LibreOffice calls before reading starts.

    One `soffice` start costs seconds; converted in batches here, each file's own
    `read_workbook` then finds its copy in the conversion cache. A failure here is not final:
    the file's own read converts it again and reports what went wrong.
    """
    legacy = [p for p in files if p.suffix.lower() in CONVERTED_SUFFIXES and p.is_file()]
    if len(legacy) < 2:
        return
    from fortap.sheet import ReadLimits
    from fortap.sheet.convert import convert_to_xlsx

    if cfg.progress:
        from rich.console import Console

        Console(stderr=True).print(f"converting {len(legacy)} .xls/.ods files with LibreOffice")
    with contextlib.suppress(Exception):  # each file's own read reports its own error
        convert_to_xlsx(legacy, ReadLimits())


def _results(files: list[str], workers: int) -> Iterator[FileResult]:
    """Each file's result in input order, computed here or in a pool of `workers` processes."""
    if workers == 1 or len(files) == 1:
        yield from map(ingest_file, files)
        return
    # spawn, not fork: the parent may hold threads (the progress bar) that fork would copy mid-lock.
    ctx = get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(files)), mp_context=ctx) as pool:
        futures = [pool.submit(ingest_file, f) for f in files]
        for path, future in zip(files, futures, strict=True):
            yield _outcome(path, future)


def _outcome(path: str, future: Future) -> FileResult:
    """The future's result; a worker that died or could not return becomes `internal_error`."""
    start = time.perf_counter()
    try:
        return future.result()
    except Exception as err:
        return _skipped(path, "internal_error", f"{type(err).__name__}: {err}", start)


def _skipped(path: str, reason: str, message: str, start: float) -> FileResult:
    seconds = round(time.perf_counter() - start, 4)
    return FileResult(FileReport(path, "skipped", reason, message, seconds=seconds))


@contextlib.contextmanager
def _progress(cfg: IngestConfig, total: int):
    """A rich progress bar over files on stderr (or nothing); yields `advance(report)`."""
    from rich.console import Console

    console = Console(stderr=True)
    if not cfg.progress or not console.is_terminal:  # in a log, a bar would leave a blank line
        yield lambda report: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("ingest", total=total)

        def advance(report: FileReport) -> None:
            bar.update(task, advance=1, description=f"ingest {Path(report.path).name[:40]}")

        yield advance


def skip_lines(report: IngestReport) -> list[str]:
    """One line per skipped file and per sheet whose tables could not be detected, with why."""
    lines = []
    for file in report.files:
        if file.status != "ok":
            # the message usually ends by naming the file again; the line starts with its path
            message = (file.message or "").removesuffix(f" ({Path(file.path).name})")
            lines.append(f"skipped {file.path} ({file.reason}): {message}")
        lines.extend(
            f"skipped sheet {sheet.name!r} of {file.path}: {sheet.error}"
            for sheet in file.sheets
            if sheet.error
        )
    return lines


def _print_summary(report: IngestReport) -> None:
    from fortap.console import stdout_console

    console = stdout_console()
    for line in skip_lines(report):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    t = report.totals()
    skipped = ", ".join(f"{r} {n}" for r, n in sorted(t["skipped_by_reason"].items())) or "none"
    console.print(
        f"read {t['files_read']} of {t['files']} files in {t['seconds']:.1f}s: "
        f"{t['sheets']} sheets, {t['tables']} tables, {t['formula_cells']} formula cells "
        f"({t['table_formula_cells']} inside tables); skipped: {skipped}; "
        f"wrote {report.out / 'tables.jsonl'} and {report.out / 'report.json'}",
        highlight=False,
        markup=False,
        soft_wrap=True,  # one line, however long its paths
    )
