"""`fortap build-cell-types INGESTED… -o SET/`: the formula-labelled cell-type set.

Real workbooks' formulas say which of their numbers are computed from others. This builder
reads the tables `fortap ingest` found (Table JSONL, header trees and context included), labels
their cells by the rules of `docs/cell-types.md (the formula-labelled set)` (`label_table`), and writes each
table as a SAUS line (`saus.read_saus` reads it) whose formulas are replaced by their cached
values, so a model sees what it sees on SAUS, a CSV export or pasted values.

Layout of SET/:

- `{train,dev,test}/saus.jl.gz`: the labelled tables of each split; the split is drawn per
  workbook as the corpus draws it (`split_of`: `corpus.split` over `book_key`, at `SHARES`),
  and each source named in `ONE_SIDE` goes whole to one split;
- `parts/SOURCE.jsonl.gz` and `parts/SOURCE.json` (its counts): one per ingest folder, written
  whole then renamed, so a rerun skips the finished sources (resumable);
- `stats.json`: each source's labelled cells per class and split, and its share of the cells.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from fortap.corpus.split import SplitConfig, book_key
from fortap.corpus.split import split_of as split_of_key
from fortap.errors import FortapError
from fortap.table.io import read_tables
from fortap.table.model import Table
from fortap.tasks.cell_types.labels import CELL_TYPES, NO_LABEL
from fortap.tasks.cell_types.own_formulas import derives
from fortap.tasks.cell_types.saus import NUMBER, SausSheet

SPLITS = ("train", "dev", "test")
SHARES = SplitConfig(train=0.7, dev=0.15)  # test takes the other 0.15
ONE_SIDE = {"excel_to_code_2050models": "train"}  # the 2050 models share one structure
# what `saus_style` and `saus_source` read: the style, and cell_type=2 on a number (.xls's flag)
FEATURE_NAMES = ("is_bold", "indentation", "h_alignment=0", "h_alignment=2",
                 "border_top_type=1", "leading_spaces", "cell_type=0", "cell_type=2")  # fmt: skip
MAX_ROWS, MAX_COLS = 300, 60  # a longer table is cut to its first rows / columns
MIN_LABELLED = 6  # a table with fewer labelled cells is left out


def split_of(book: str, source: str) -> str:
    """The split of workbook `book`: `ONE_SIDE` first, then the corpus's draw over its
    `book_key` (copies of one workbook, and TASI's numbered books by folder, stay together)."""
    if source in ONE_SIDE:
        return ONE_SIDE[source]
    return split_of_key(book_key(book), SHARES)


def number_text(v: float) -> str:
    """A number as a text `saus.to_cell` reads back as that number."""
    text = f"{v:.12g}"
    if not NUMBER.match(text):
        text = f"{v:.12f}".rstrip("0").rstrip(".")
    return text if NUMBER.match(text) else ""


def label_table(t: Table) -> dict | None:
    """One SAUS line for table `t` (title row above, notes below), or None when it has fewer
    than `MIN_LABELLED` labelled cells or no derived or data cell."""
    n_rows, n_cols = min(t.region.n_rows, MAX_ROWS), min(t.region.n_cols, MAX_COLS)
    title, notes = (t.context[0], t.context[1:]) if t.context else ("", ())
    head = 2 if title else 0
    bounds = (t.region.bottom + 1, t.region.right + 1)
    total_rows = head + n_rows + (1 + len(notes) if notes else 0)
    texts = [[""] * n_cols for _ in range(total_rows)]
    labels = [[None] * n_cols for _ in range(total_rows)]
    feats = [[[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0] for _ in range(n_cols)] for _ in range(total_rows)]
    if title:
        texts[0][0], labels[0][0] = title[:200], "metadata"
    for k, note in enumerate(notes):
        r = head + n_rows + 1 + k
        texts[r][0], labels[r][0] = note[:200], "notes"
    for r in range(n_rows):
        for c in range(n_cols):
            cell = t.cells[r][c]
            if cell.kind == "empty" or cell.value is None:
                continue
            text = number_text(float(cell.value)) if cell.kind == "number" else str(cell.value)
            texts[head + r][c] = text
            labels[head + r][c] = _label(t, r, c, bounds)
            st = cell.style
            align = st.h_align if st.h_align != "general" else None
            spaces = len(text) - len(text.lstrip(" ")) if cell.kind == "text" else 0
            feats[head + r][c] = [float(st.bold), float(st.indent), float(align is None),
                                  float(align == "center"), float(st.border_top), float(spaces),
                                  0.0, float(cell.kind == "number")]  # fmt: skip
    count = Counter(a for row in labels for a in row if a is not None)
    if sum(count.values()) < MIN_LABELLED or not (count["data"] or count["derived"]):
        return None
    return {"file_name": Path(t.book).name, "table_id": f"{t.sheet}!{t.region.top},{t.region.left}",
            "num_rows": total_rows, "num_cols": n_cols, "table_array": texts,
            "feature_array": feats, "feature_names": list(FEATURE_NAMES), "annotations": labels}  # fmt: skip


def _label(t: Table, r: int, c: int, bounds: tuple[int, int]) -> str | None:
    """The SAUS name of table cell (r, c)'s type, None when the rules leave it unlabelled."""
    cell = t.cells[r][c]
    if r < t.top_header_rows:
        return "header" if cell.kind in ("text", "number", "date") else None
    if c < t.left_header_cols:
        return "attributes" if cell.kind in ("text", "number", "date") else None
    if cell.kind != "number":
        return None
    if cell.formula is None:
        return "data"
    at = (t.region.top + r, t.region.left + c)
    return "derived" if derives(cell.formula, t.sheet, at, bounds, t.region) else None


def build_source(folder: Path, source: str, parts: Path) -> dict:
    """Label every table of ingest folder `folder` into parts/SOURCE.jsonl.gz; its counts."""
    done = parts / f"{source}.json"
    if done.is_file():
        return json.loads(done.read_text())
    counts: dict[str, Counter] = {s: Counter() for s in SPLITS}
    tmp = parts / f"{source}.jsonl.gz.tmp"
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        for t in read_tables([folder]):
            line = label_table(t)
            if line is None:
                continue
            split = split_of(t.book, source)
            line["split"], line["source"] = split, source
            fh.write(json.dumps(line) + "\n")
            counts[split].update(a for row in line["annotations"] for a in row if a is not None)
            counts[split]["tables"] += 1
    tmp.rename(parts / f"{source}.jsonl.gz")
    out = {s: dict(c) for s, c in counts.items()}
    done.write_text(json.dumps(out))
    return out


def build_formula_set(folders: Sequence[str | Path], out: str | Path) -> dict:
    """The formula-labelled set of the ingest folders `folders` (one per source, named after
    it) under `out` (module doc); returns stats.json's content."""
    out = Path(out)
    parts = out / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    sources = {}
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise FortapError(f"{folder}: not an ingest folder (run `fortap ingest` first)")
        sources[folder.name] = build_source(folder, folder.name, parts)
    with ExitStack() as stack:
        writers = {s: stack.enter_context(gzip.open(_split_file(out, s), "wt", encoding="utf-8"))
                   for s in SPLITS}  # fmt: skip
        for source in sources:
            with gzip.open(parts / f"{source}.jsonl.gz", "rt", encoding="utf-8") as fh:
                for line in fh:
                    writers[json.loads(line)["split"]].write(line)
    stats = _stats(sources)
    (out / "stats.json").write_text(json.dumps(stats, indent=1))
    return stats


def capped(sheets: Sequence[SausSheet], cap: int, seed: int = 0) -> list[SausSheet]:
    """Whole tables of each source, in an order drawn by `seed`, until each source holds `cap`
    labelled cells (the table that passes the cap is kept whole)."""
    order = list(sheets)
    random.Random(seed).shuffle(order)
    used: Counter = Counter()
    out = []
    for s in order:
        if used[s.source] >= cap:
            continue
        used[s.source] += sum(label != NO_LABEL for row in s.labels for label in row)
        out.append(s)
    return out


def _split_file(out: Path, split: str) -> Path:
    (out / split).mkdir(parents=True, exist_ok=True)
    return out / split / "saus.jl.gz"


def _stats(sources: dict[str, dict]) -> dict:
    names = {"attributes": "left_attribute", "header": "top_attribute"}
    cells = {src: sum(v for s in c.values() for k, v in s.items() if k != "tables")
             for src, c in sources.items()}  # fmt: skip
    total = sum(cells.values()) or 1
    per = {}
    for src, by_split in sources.items():
        classes = Counter()
        for s in by_split.values():
            classes.update({names.get(k, k): v for k, v in s.items() if k != "tables"})
        per[src] = {"cells": cells[src], "share": round(cells[src] / total, 4),
                    "tables": {s: by_split[s].get("tables", 0) for s in SPLITS},
                    "cells_by_split": {s: sum(v for k, v in by_split[s].items() if k != "tables")
                                       for s in SPLITS},
                    "classes": {k: classes.get(k, 0) for k in CELL_TYPES}}  # fmt: skip
    return {"cells": total, "sources": per}
