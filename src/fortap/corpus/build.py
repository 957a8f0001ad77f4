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
byte, whatever `workers` is.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from fortap.corpus.split import SPLITS, SplitConfig, book_key, canonical_books, split_of
from fortap.corpus.stats import print_report
from fortap.corpus.tasks import (
    CorpusConfig,
    Task,
    add_counts,
    jsonl_books,
    marker_path,
    plan_tasks,
    run_task,
    task_done,
    write_json,
)
from fortap.errors import FortapError
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
) -> dict:
    """Build (or resume) the corpus of `paths` in `out`; returns the stats (see module doc).

    `cfg` replaces the defaults whole (then `seed` and `tables_per_task` are ignored);
    `split_overrides` is a JSON file {workbook key or path: split}; `stop_after` stops after
    that many tasks (tests simulate a killed build with it).
    """
    if cfg is None:
        cfg = CorpusConfig(seed=seed, tables_per_task=tables_per_task,
                           split=SplitConfig(seed=seed))  # fmt: skip
    overrides = load_split_overrides(split_overrides)
    if overrides:
        cfg = with_overrides(cfg, overrides)
    if workers < 1:
        raise FortapError(f"--workers must be >= 1, got {workers}")
    out = Path(out)
    start = time.perf_counter()
    tasks, canonical = plan(paths, cfg)
    _check_config(out, cfg, tasks, canonical)
    todo = [t for t in tasks if not task_done(out, t)]
    for done, _ in enumerate(_run(todo, out, cfg, canonical, workers, progress), start=1):
        if stop_after is not None and done >= stop_after and done < len(todo):
            raise BuildInterrupted(f"build stopped after {done} tasks (stop_after)")
    stats = _finish(out, cfg, tasks, canonical)
    stats["seconds"] = round(time.perf_counter() - start, 1)
    if progress:
        print_report(stats, stats["workbooks"])
    return stats


def plan(paths: Sequence[str | Path], cfg: CorpusConfig) -> tuple[list[Task], dict[str, str]]:
    """The build's tasks, and every workbook's canonical copy (from a scan of book and sheet
    names, without parsing tables)."""
    jsonl, hitab = table_inputs(paths)
    books_by_file = {str(p): jsonl_books(p) for p in jsonl}
    sheets: dict[str, set[str]] = {str(p): {p.stem} for p in hitab}
    for book, sheet in (pair for pairs in books_by_file.values() for pair in pairs):
        sheets.setdefault(book, set()).add(sheet)
    counts = {f: len(b) for f, b in books_by_file.items()}
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
    todo: list[Task], out: Path, cfg: CorpusConfig, canonical: dict, workers: int, progress: bool
):
    """Run the tasks (here or in a pool), yielding each record as it completes."""
    bar = _progress(len(todo)) if progress else None
    try:
        if workers == 1 or len(todo) <= 1:
            for task in todo:
                yield run_task(task, str(out), cfg, canonical)
                if bar:
                    bar[0].update(bar[1], advance=1)
            return
        # spawn, not fork: the parent may hold threads (the progress bar) that fork would copy mid-lock.
        with ProcessPoolExecutor(
            max_workers=min(workers, len(todo)), mp_context=get_context("spawn")
        ) as pool:
            futures = [pool.submit(run_task, t, str(out), cfg, canonical) for t in todo]
            try:
                for future in futures:
                    yield future.result()
                    if bar:
                        bar[0].update(bar[1], advance=1)
            finally:
                for future in futures:
                    future.cancel()
    finally:
        if bar:
            bar[0].stop()


def _progress(total: int):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress("build-corpus", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)  # fmt: skip
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


def load_split_overrides(path: str | Path | None) -> dict[str, str]:
    """A JSON object {workbook key or path: split}; paths are turned into keys."""
    if path is None:
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {book_key(k) if ("/" in k or "." in k) else k: v for k, v in data.items()}


def with_overrides(cfg: CorpusConfig, overrides: dict[str, str]) -> CorpusConfig:
    split = SplitConfig(cfg.split.train, cfg.split.dev, cfg.split.seed, overrides)
    return dataclasses.replace(cfg, split=split)
