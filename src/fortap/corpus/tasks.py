"""The units of a corpus build: which tables a task reads, and what one task does.

Inputs are Table JSONL files (`fortap ingest`) and HiTab raw table JSON files. The build
plans its tasks up front: each JSONL file is cut into runs of `tables_per_task` lines, HiTab
files are grouped `tables_per_task` at a time, in sorted order. A task reads its tables, turns
their kept formulas into samples (`fortap.corpus.samples`) and writes one shard per split it
has samples for, then its marker `tasks/NNNNN.json` (shard names, row counts and the task's
stats). A task whose marker and shards are all present is done; a rerun skips it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from fortap.corpus.facts import FactsConfig, formula_facts, kept_formulas
from fortap.corpus.samples import (
    FORMULA_KEY,
    SampleConfig,
    draw_mode,
    formula_sample,
    sample_rng,
    table_sample,
)
from fortap.corpus.split import SPLITS, SplitConfig, book_key, split_of
from fortap.corpus.stats import sample_stats
from fortap.encoding.serialize import SerializeConfig
from fortap.encoding.shards import shard_rows, write_shard
from fortap.formula.table_formulas import parse_table_formulas
from fortap.sheet.model import a1
from fortap.table.model import Table

_FIELD = {name: re.compile(rf'"{name}"\s*:\s*("(?:[^"\\]|\\.)*")') for name in ("book", "sheet")}


@dataclass(frozen=True)
class CorpusConfig:
    """Everything that decides a corpus's content (saved as `config.json` in the corpus)."""

    seed: int = 0  # seeds every sample's input-mode draw and the split hash
    tables_per_task: int = 64  # tables read by one task (one shard per split per task)
    facts: FactsConfig = field(default_factory=FactsConfig)
    sample: SampleConfig = field(default_factory=SampleConfig)
    split: SplitConfig = field(default_factory=SplitConfig)
    serialize: SerializeConfig = field(default_factory=lambda: SerializeConfig(max_seq_len=224))

    def __post_init__(self) -> None:
        if self.tables_per_task < 1:
            raise ValueError(
                f"CorpusConfig.tables_per_task must be >= 1, got {self.tables_per_task}"
            )


@dataclass(frozen=True)
class Task:
    """One unit of work: JSONL lines [start, stop) of `path`, or whole HiTab files."""

    index: int
    kind: str  # "jsonl" or "hitab"
    paths: tuple[str, ...]
    start: int = 0
    stop: int = 0

    @property
    def name(self) -> str:
        return f"{self.index:05d}"


def book_of_line(line: str) -> tuple[str, str]:
    """(book, sheet) of a Table JSON line, found without parsing the whole line (table_to_json
    writes them first; a quote inside a cell value is escaped, so it cannot fake them)."""
    found = [_FIELD[name].search(line) for name in ("book", "sheet")]
    if all(found):
        return json.loads(found[0].group(1)), json.loads(found[1].group(1))  # type: ignore[union-attr]
    data = json.loads(line)
    return data["book"], data["sheet"]


def jsonl_books(path: Path) -> list[tuple[str, str]]:
    """(book, sheet) of every line of a Table JSONL file (blank lines are not tables)."""
    with path.open(encoding="utf-8") as handle:
        return [book_of_line(line) for line in handle if line.strip()]


def jsonl_sheets(path: Path) -> tuple[int, list[tuple[str, str]]]:
    """(tables, the distinct (book, sheet) pairs in first-seen order) of a Table JSONL file:
    what the plan needs of it, small enough to come back from a worker."""
    books = jsonl_books(path)
    return len(books), list(dict.fromkeys(books))


def plan_tasks(jsonl: Mapping[str, int], hitab: list[str], per_task: int) -> list[Task]:
    """Tasks over JSONL files (path -> table count) and HiTab files, in a fixed order."""
    tasks: list[Task] = []
    for path, n in jsonl.items():
        for start in range(0, n, per_task):
            tasks.append(Task(len(tasks), "jsonl", (path,), start, min(n, start + per_task)))
    for start in range(0, len(hitab), per_task):
        tasks.append(Task(len(tasks), "hitab", tuple(hitab[start : start + per_task])))
    return tasks


def task_tables(task: Task) -> Iterator[Table]:
    if task.kind == "hitab":
        from fortap.table.hitab import read_hitab

        for path in task.paths:
            yield read_hitab(path)
        return
    from fortap.table.io import table_from_json

    with open(task.paths[0], encoding="utf-8") as handle:
        lines = (line for line in handle if line.strip())
        for i, line in enumerate(lines):
            if i >= task.stop:
                break
            if i >= task.start:
                yield table_from_json(json.loads(line))


def marker_path(out: Path, task: Task) -> Path:
    return out / "tasks" / f"{task.name}.json"


def task_done(out: Path, task: Task) -> bool:
    """The task's marker exists and names shards that exist with the recorded row counts."""
    marker = marker_path(out, task)
    if not marker.is_file():
        return False
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
        return all(shard_rows(out / s["file"]) == s["rows"] for s in record["shards"])
    except (OSError, ValueError, KeyError):
        return False


def run_task(task: Task, out: str, cfg: CorpusConfig, canonical: Mapping[str, str]) -> dict:
    """Build one task's shards and marker; returns the marker record."""
    from fortap.text.tokenizer import load_tokenizer

    tokenizer = load_tokenizer()
    out_dir = Path(out)
    by_split: dict[str, list] = {s: [] for s in SPLITS}
    stats: dict = {"tables": 0, "duplicate_tables": 0}
    for table in task_tables(task):
        stats["tables"] += 1
        if canonical.get(table.book, table.book) != table.book:
            stats["duplicate_tables"] += 1
            continue
        key = book_key(table.book)
        split = split_of(key, cfg.split)
        for example in table_examples(table, key, cfg, tokenizer, stats):
            example.meta.update(split=split, book_key=key)
            by_split[split].append(example)
            add_counts(stats, sample_stats(example.targets.get(FORMULA_KEY), split))
    shards = []
    for split, examples in by_split.items():
        if examples:
            file = f"shards/{split}/part-{task.name}.parquet"
            rows = write_shard(out_dir / file, examples)
            shards.append({"file": file, "split": split, "rows": rows})
    record = {"task": task.index, "shards": shards, "stats": stats}
    write_json(marker_path(out_dir, task), record)
    return record


def table_examples(table: Table, key: str, cfg: CorpusConfig, tokenizer, stats: dict):
    """The samples of one table: one per kept formula, or one table sample (see `samples`)."""
    formulas = parse_table_formulas(table)  # each formula cell parsed once, carried from here
    kept, verdicts = kept_formulas(table, cfg.facts, formulas)
    add_counts(stats, {"formula_cells": sum(verdicts.values()), "verdicts": dict(verdicts)})
    if kept:
        stats["tables_with_kept_formulas"] = stats.get("tables_with_kept_formulas", 0) + 1
    every = [formula_facts(table, rc, kept[rc], cfg.facts) for rc in sorted(kept)]
    for facts in every:
        rc = facts.cell
        sheet_rc = (table.region.top + rc[0], table.region.left + rc[1])
        rng = sample_rng(cfg.seed, key, table.sheet, sheet_rc)
        mode = draw_mode(rng, cfg.sample)
        example = formula_sample(
            table, facts, tokenizer, cfg.serialize, mode, neighbours=every, formulas=formulas
        )
        if example is None:
            add_counts(stats, {"dropped_no_room": 1})
            continue
        example.meta["sample_id"] = f"{key}|{table.sheet}|{a1(*sheet_rc)}"
        yield example
    if not kept and cfg.sample.table_samples:
        where = f"{table.sheet}!{table.region.a1}"
        example = table_sample(
            table, tokenizer, cfg.serialize, sample_rng(cfg.seed, key, where, (-1, -1))
        )
        if example is not None:
            example.meta["sample_id"] = f"{key}|{where}"
            yield example


def add_counts(total: dict, part: Mapping) -> None:
    """Add counts (nested dicts of numbers) of `part` into `total`."""
    for name, value in part.items():
        if isinstance(value, Mapping):
            add_counts(total.setdefault(name, {}), value)
        else:
            total[name] = total.get(name, 0) + value


def write_json(path: Path, data) -> None:
    """Write JSON atomically (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(
        json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    os.replace(temp, path)
