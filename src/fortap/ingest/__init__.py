"""`run_ingest`: workbook files and folders -> Table JSON lines, with a report of what was read.

Folders are searched recursively for spreadsheet files (.xlsx .xlsm .xls .ods .csv .tsv);
files named on the command line are always tried, whatever their suffix. The files, in input
order (folders sorted by path), are cut into tasks of `files_per_task`; a task reads its files
(`fortap.ingest.files`) on a worker of the chosen engine (`fortap.ingest.engines`: here, a local
process pool or Ray). The output folder gets:

- `tables.jsonl/part-NNNNN.jsonl`: one shard per task, one Table per line in `fortap.table.io`
  JSON, files in input order, sheets in workbook order, tables in detection order. Every
  reader of tables (`read_tables`, `build-corpus`, `finetune`) takes the folder (or the output
  folder above it) and reads its shards in name order, which is input order.
- `tasks/NNNNN.json`: a finished task's marker: its shard's size and its files' reports;
- `ingest.json`: the plan (files per task, and a hash of every input's path, size and mtime);
- `report.json`, written last from the markers: per file `status` ("ok" or "skipped"), the
  `reason` key and `message` of a skip, per sheet its size, cells, formula cells and tables
  (region, header rows and columns, tree depths, first context line); then the files ignored
  in folders and the totals.

A rerun over the same inputs skips the tasks whose marker and shard are there, so a killed
run resumes; other inputs replace the old output. One bad file never stops a batch (it is
reported with its reason); a task whose worker died is reported as `internal_error` for its
files and is run again by the next run. The output does not depend on the engine or the
number of workers, except the `seconds` timings in the report.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from fortap.errors import FortapError
from fortap.ingest.engines import EngineConfig, Outcome, run_tasks
from fortap.ingest.files import (
    TABLES,
    FileResult,
    IngestTask,
    ingest_file,
    ingest_task,
    skipped,
    table_line,
    task_done,
    write_json,
)
from fortap.ingest_report import (
    FileReport,
    IngestReport,
    print_summary,
    skip_lines,
    write_report,
)

__all__ = ["FileResult", "IngestConfig", "expand_paths", "ingest_file", "run_ingest",
           "skip_lines", "table_line"]  # fmt: skip

SPREADSHEET_SUFFIXES = frozenset({".xlsx", ".xlsm", ".xls", ".ods", ".csv", ".tsv"})


@dataclass(frozen=True)
class IngestConfig:
    """How an ingest run reads its files."""

    workers: int = 1  # worker processes (local) or CPUs of a Ray instance started here
    progress: bool = True  # show a progress bar (on a terminal)
    files_per_task: int = 16  # files read by one task into one shard (the unit of resuming)
    engine: str = "local"  # "local" or "ray" (`fortap.ingest.engines`)
    address: str | None = None  # ray: a running cluster's address
    summary: bool = True  # print what was read and skipped at the end

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"IngestConfig.workers must be >= 1, got {self.workers}")
        if self.files_per_task < 1:
            raise ValueError(f"IngestConfig.files_per_task must be >= 1, got {self.files_per_task}")


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


def run_ingest(
    paths: list[Path],
    out: Path,
    workers: int = 1,
    *,
    progress: bool = True,
    engine: str = "local",
    address: str | None = None,
    files_per_task: int = 16,
    replace_other_run: bool = True,
    summary: bool | None = None,
) -> IngestReport:
    """Ingest `paths` (files or folders) into `out` (see the module doc); resumes a killed run.

    `out` holding an ingest of other inputs is replaced, or refused when not `replace_other_run`
    (the command line's choice: only `--overwrite` replaces it). `progress=False` alone runs
    quietly; `summary` (default: as `progress`) prints the summary without the bar."""
    summary = progress if summary is None else summary
    cfg = IngestConfig(workers, progress, files_per_task, engine, address, summary)
    start = time.perf_counter()
    files, ignored = expand_paths([Path(p) for p in paths])
    if not files:
        shown = ", ".join(str(p) for p in paths) or "(no paths)"
        raise FortapError(f"no spreadsheet files found in {shown}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = plan_tasks([str(f) for f in files], cfg.files_per_task)
    _start_over_unless_same(out, files, cfg, replace_other_run)
    todo = [t for t in tasks if not task_done(out, t)]
    workers = cfg.workers if cfg.engine == "ray" else min(cfg.workers, max(len(todo), 1))
    engine_cfg = EngineConfig(cfg.engine, workers, cfg.address)
    failed: dict[int, Outcome] = {}
    with _progress(cfg, sum(len(t.files) for t in todo)) as advance:
        for outcome in run_tasks(ingest_task, todo, engine_cfg, (str(out),)):
            if outcome.error is not None:
                failed[outcome.item.index] = outcome
            advance(len(outcome.item.files))
    reports = tuple(_reports(out, tasks, failed))
    report = IngestReport(out, reports, tuple(str(p) for p in ignored),
                          time.perf_counter() - start)  # fmt: skip
    write_report(report, out / "report.json")
    if cfg.summary:
        print_summary(report, out / TABLES)
    return report


def plan_tasks(files: list[str], per_task: int) -> list[IngestTask]:
    """The run's tasks: runs of `per_task` files in input order."""
    starts = range(0, len(files), per_task)
    width = max(5, len(str(len(starts) - 1)))
    return [IngestTask(i, tuple(files[s : s + per_task]), width) for i, s in enumerate(starts)]


def _start_over_unless_same(
    out: Path, files: list[Path], cfg: IngestConfig, replace: bool = True
) -> None:
    """Keep `out`'s finished tasks if it holds a run of the same plan, else clear its output
    (or, unless `replace`, refuse to when it holds another plan's)."""
    digest = hashlib.sha256()
    for path in files:
        stat = path.stat() if path.is_file() else None
        key = [str(path), stat.st_size, stat.st_mtime_ns] if stat else [str(path)]
        digest.update(json.dumps(key).encode() + b"\n")
    record = {"files": len(files), "files_per_task": cfg.files_per_task,
              "inputs_sha256": digest.hexdigest()}  # fmt: skip
    plan = out / "ingest.json"
    with contextlib.suppress(OSError, ValueError):
        if json.loads(plan.read_text(encoding="utf-8")) == record:
            return
    if not replace and plan.exists():
        raise FortapError(
            f"--out {out}: holds an ingest of other inputs or settings; nothing was written. "
            "Give --overwrite to replace it, or choose another folder"
        )
    tables = out / TABLES
    if tables.is_dir():
        shutil.rmtree(tables)
    for stale in [tables, out / f"{TABLES}.part", out / "report.json", *out.glob("tasks/*.json")]:
        stale.unlink(missing_ok=True)
    write_json(plan, record)


def _reports(
    out: Path, tasks: list[IngestTask], failed: dict[int, Outcome]
) -> Iterator[FileReport]:
    """Every file's report in input order: from the task markers, or the task's failure."""
    for task in tasks:
        if task.index in failed:
            error = failed[task.index].error
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            message = f"the worker reading this file's task failed: {type(error).__name__}: {first}"
            yield from (skipped(f, "internal_error", message, time.perf_counter()).report
                        for f in task.files)  # fmt: skip
            continue
        record = json.loads((out / task.marker).read_text(encoding="utf-8"))
        yield from (FileReport.from_json(f) for f in record["files"])


@contextlib.contextmanager
def _progress(cfg: IngestConfig, total: int):
    """A rich progress bar over files on stderr (or nothing); yields `advance(files)`."""
    from rich.console import Console

    console = Console(stderr=True)
    if not cfg.progress or not console.is_terminal:  # in a log, a bar would leave a blank line
        yield lambda files: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = ("ingest", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("files", total=total)
        yield lambda files: bar.update(task, advance=files)
