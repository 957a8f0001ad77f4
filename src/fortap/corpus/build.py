"""`fortap build-corpus TABLES… -o CORPUS/`: Tables -> ForTaP pretraining shards (`run_build_corpus`).

Layout of a corpus folder:

- `config.json`: the `CorpusConfig` and the planned tasks; a rerun with other inputs or
  settings is refused rather than mixed in;
- `shards/{train,dev,test}/part-NNNNN.parquet`: `fortap.encoding.shards`, one per task and split;
- `tasks/NNNNN.json`: a finished task's shards, row counts and stats (written after its shards);
- `split.json`: every workbook key's split, the canonical path of each key and the duplicates
  skipped (`fortap.corpus.split` states the rule);
- `index.json` (shards per split with rows) and `stats.json`: written last, from the markers.

Resuming: tasks whose marker and shards are present are skipped; any other task is built
again from scratch (a killed writer leaves at most `.tmp` files, which are overwritten). Samples
depend only on (seed, workbook, sheet, cell), so a resumed build equals a clean one byte for
byte, whatever the engine and `workers` are.

Tasks (and the plan's scan of the JSONL files for book and sheet names) run on
`fortap.ingest.engines`: here, in a local process pool, or on Ray (`engine="ray"`, `address`), a
bounded window of them at a time; a task whose Ray worker died is run again, and its shard
files are replaced whole, so nothing is written twice.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path

from fortap.corpus.split import SPLITS, SplitConfig, book_key, canonical_books, split_of
from fortap.corpus.stats import print_report
from fortap.corpus.tasks import (
    CorpusConfig,
    Task,
    add_counts,
    jsonl_sheets,
    marker_path,
    plan_tasks,
    run_task,
    task_done,
    write_json,
)
from fortap.errors import FortapError
from fortap.ingest.engines import EngineConfig, engine_session, run_tasks
from fortap.table.inputs import table_inputs


class BuildInterrupted(FortapError):
    """Raised by `stop_after` (tests simulate a killed build with it)."""


def run_build_corpus(
    paths: Sequence[str | Path],
    out: str | Path,
    workers: int = 1,
    seed: int = 0,
    tables_per_task: int = 64,
    split_overrides: str | Path | None = None,
    progress: bool = True,
    cfg: CorpusConfig | None = None,
    stop_after: int | None = None,
    engine: str = "local",
    address: str | None = None,
) -> dict:
    """Build (or resume) the corpus of `paths` in `out`; returns the stats (see module doc).

    `cfg` replaces the defaults whole (then `seed` and `tables_per_task` are ignored);
    `split_overrides` is a JSON file {workbook key or path: split}; `stop_after` stops after
    that many tasks (tests simulate a killed build with it); `engine` and `address` say where
    tasks run (`fortap.ingest.engines`).
    """
    if cfg is None:
        cfg = CorpusConfig(seed=seed, tables_per_task=tables_per_task,
                           split=SplitConfig(seed=seed))  # fmt: skip
    overrides = load_split_overrides(split_overrides)
    if overrides:
        cfg = with_overrides(cfg, overrides)
    engine_cfg = EngineConfig(engine, workers, address)
    out = Path(out)
    start = time.perf_counter()
    with engine_session(engine_cfg):
        tasks, canonical = plan(paths, cfg, engine_cfg)
        _check_config(out, cfg, tasks, canonical)
        todo = [t for t in tasks if not task_done(out, t)]
        for done, _ in enumerate(_run(todo, out, cfg, canonical, engine_cfg, progress), start=1):
            if stop_after is not None and done >= stop_after and done < len(todo):
                raise BuildInterrupted(f"build stopped after {done} tasks (stop_after)")
    stats = _finish(out, cfg, tasks, canonical)
    stats["seconds"] = round(time.perf_counter() - start, 1)
    if progress:
        print_report(stats, stats["workbooks"])
    return stats


def plan(
    paths: Sequence[str | Path], cfg: CorpusConfig, engine: EngineConfig | None = None
) -> tuple[list[Task], dict[str, str]]:
    """The build's tasks, and every workbook's canonical copy (from a scan of book and sheet
    names, without parsing tables, one JSONL file per task on `engine`)."""
    jsonl, hitab = table_inputs(paths)
    sheets: dict[str, set[str]] = {str(p): {p.stem} for p in hitab}
    counts: dict[str, int] = {str(p): 0 for p in jsonl}  # input order, whatever ends first
    # a scan is cheap beside a task: locally it runs here, rather than start a pool for it
    scan = engine if engine and engine.engine == "ray" else EngineConfig()
    for outcome in run_tasks(jsonl_sheets, jsonl, scan):
        if outcome.error is not None:
            raise FortapError(f"cannot scan {outcome.item}: {outcome.error}") from outcome.error
        counts[str(outcome.item)], pairs = outcome.value
        for book, sheet in pairs:
            sheets.setdefault(book, set()).add(sheet)
    tasks = plan_tasks(counts, [str(p) for p in hitab], cfg.tables_per_task)
    return tasks, canonical_books(sheets, sheets)


def _check_config(out: Path, cfg: CorpusConfig, tasks: list[Task], canonical: dict) -> None:
    """Write `config.json`, or check that an existing one describes the same build."""
    books = hashlib.sha256(json.dumps(sorted(canonical.items())).encode()).hexdigest()
    record = {
        "config": dataclasses.asdict(cfg),
        "tasks": [dataclasses.asdict(t) for t in tasks],
        "canonical_books_sha256": books,
    }
    record = json.loads(json.dumps(record))
    path = out / "config.json"
    if path.is_file():
        if json.loads(path.read_text(encoding="utf-8")) != record:
            raise FortapError(
                f"{out} holds a corpus built from other inputs or settings; use a new folder"
            )
        return
    write_json(path, record)


def _run(
    todo: list[Task],
    out: Path,
    cfg: CorpusConfig,
    canonical: dict,
    engine: EngineConfig,
    progress: bool,
):
    """Run the tasks on `engine`, yielding each record as it completes."""
    bar = _progress(len(todo)) if progress else None
    if engine.engine == "local":  # no idle processes when there are fewer tasks than workers
        engine = dataclasses.replace(engine, workers=min(engine.workers, max(len(todo), 1)))
    try:
        for outcome in run_tasks(run_task, todo, engine, (str(out), cfg, canonical)):
            if outcome.error is not None:
                task = outcome.item
                raise FortapError(
                    f"build-corpus task {task.name} ({', '.join(task.paths[:1])}…) failed: "
                    f"{type(outcome.error).__name__}: {outcome.error}; a rerun resumes"
                ) from outcome.error
            yield outcome.value
            if bar:
                bar[0].update(bar[1], advance=1)
    finally:
        if bar:
            bar[0].stop()


def _progress(total: int):
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress("build-corpus", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   TimeRemainingColumn(), console=Console(stderr=True), transient=True)  # fmt: skip
    bar.start()
    return bar, bar.add_task("tasks", total=total)


def _finish(out: Path, cfg: CorpusConfig, tasks: list[Task], canonical: dict[str, str]) -> dict:
    """Write split.json, index.json and stats.json from the task markers."""
    keys = sorted({book_key(p) for p in canonical.values()})
    splits = {k: split_of(k, cfg.split) for k in keys}
    duplicates = {p: c for p, c in sorted(canonical.items()) if p != c}
    canon = {book_key(c): c for c in sorted(set(canonical.values()))}
    write_json(out / "split.json", {"rule": "fortap.corpus.split", "splits": splits,
                                    "canonical": canon, "duplicates": duplicates})  # fmt: skip
    index: dict[str, list] = {s: [] for s in SPLITS}
    stats: dict = {}
    for task in tasks:
        record = json.loads(marker_path(out, task).read_text(encoding="utf-8"))
        for shard in record["shards"]:
            index[shard["split"]].append({"file": shard["file"], "rows": shard["rows"]})
        add_counts(stats, record["stats"])
    workbooks = {s: sum(v == s for v in splits.values()) for s in SPLITS}
    stats["workbooks"] = workbooks
    stats["duplicate_workbooks"] = len(duplicates)
    write_json(
        out / "index.json",
        {s: {"rows": sum(x["rows"] for x in v), "shards": v} for s, v in index.items()},
    )
    write_json(out / "stats.json", stats)
    return stats


def corpus_shards(corpus: str | Path, split: str) -> list[Path]:
    """The shard files of one split of a built corpus, in task order."""
    corpus = Path(corpus)
    index = json.loads((corpus / "index.json").read_text(encoding="utf-8"))
    if split not in index:
        raise FortapError(f"{corpus}: no split {split!r} (have {', '.join(index)})")
    return [corpus / s["file"] for s in index[split]["shards"]]


def read_corpus(corpus: str | Path, split: str):
    """Stream the Examples of one split of a built corpus."""
    from fortap.encoding.shards import read_shard

    for path in corpus_shards(corpus, split):
        yield from read_shard(path)


def read_corpus_arrays(corpus: str | Path, split: str) -> list:
    """Every example of one split of a built corpus as `ExampleArrays`, each shard decoded
    once, column by column (`fortap.encoding.shards.read_shard_arrays`)."""
    from fortap.encoding.shards import read_shard_arrays

    return [x for path in corpus_shards(corpus, split) for x in read_shard_arrays(path)]


def load_split_overrides(path: str | Path | None) -> dict[str, str]:
    """A JSON object {workbook key or path: split}; paths are turned into keys."""
    if path is None:
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {book_key(k) if ("/" in k or "." in k) else k: v for k, v in data.items()}


def with_overrides(cfg: CorpusConfig, overrides: dict[str, str]) -> CorpusConfig:
    split = SplitConfig(cfg.split.train, cfg.split.dev, cfg.split.seed, overrides)
    return dataclasses.replace(cfg, split=split)
