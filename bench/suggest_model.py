"""Per-call cost of the model candidate source: `Suggester.suggest` with and without `--model`.

    python bench/suggest_model.py ../shared/data --model OUT/model [--per-book 10] [--threads 1]
        [--json PATH]

The model is loaded once (`ModelSource.load`, timed). For each test-side workbook (the
formula-prediction split, `fortap.suggest.books.side_of`) under the given paths, the workbook is
opened twice, without the model (the baseline) and with it, and `--per-book` formula cells
spread over it (`books.targets_of`) are asked for `--top` suggestions on both (own formula
hidden, previews of the shortlist included), in the same run. The model source is also timed
alone, split into its input (table region built with the hidden cells empty, serialised) and
the rest (encoder pass, beam search, text). Reported: p50 / p95 of each, the ratio with / without
the model, how many beam entries survive as formulas, and how often the model gives any.

Targets (issue 19's, now with the model): p50 <= 30 ms and p95 <= 150 ms per cell with
previews; measured, not asserted.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

from fortap.corpus.spread import spread
from fortap.errors import FortapError
from fortap.sheet.model import a1
from fortap.suggest.books import side_of, targets_of, workbook_files
from fortap.suggest.engine import Suggester


def measure(files: list[Path], model_dir: Path, ranker: Path | None, per_book: int, top: int):
    """Per-cell timings (ms) by what was timed, and the model's beam counts."""
    from fortap.suggest.candidates.model import ModelSource

    start = time.perf_counter()
    source = ModelSource.load(model_dir)
    load_s = time.perf_counter() - start
    ms: dict[str, list[float]] = {"without": [], "with": [], "source": [], "input": []}
    kept, books = [], 0
    for path in files:
        try:
            plain = Suggester.open(path, ranker=ranker)
            full = Suggester.open(path, ranker=ranker, model=model_dir)
        except FortapError:
            continue
        books += 1
        for t in spread(targets_of(full.context), per_book):
            cell = a1(t.row, t.col)
            for name, sug in (("without", plain), ("with", full)):
                start = time.perf_counter()
                sug.suggest(t.sheet, cell, k=top)
                ms[name].append(1000 * (time.perf_counter() - start))
            hidden = frozenset({(t.sheet, t.row, t.col)})
            start = time.perf_counter()
            source.example(full.context, t, hidden)
            ms["input"].append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            kept.append(len(source.candidates(full.context, t, hidden)))
            ms["source"].append(1000 * (time.perf_counter() - start))
    return {k: np.array(v) for k, v in ms.items()}, np.array(kept), load_s, books


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--model", type=Path, required=True, help="formula-prediction model folder")
    ap.add_argument("--ranker", type=Path, default=None)
    ap.add_argument("--per-book", type=int, default=10)
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)  # one: on a shared 2-core machine two threads wait
    files = [f for f in workbook_files(args.paths) if side_of(f) == "test"]
    ms, kept, load_s, books = measure(files, args.model, args.ranker, args.per_book, args.top)
    rows = []
    for name, label in (
        ("without", "suggest, no model (baseline)"),
        ("with", "suggest with the model"),
        ("source", "model source alone"),
        ("input", "  of which the input (table + serialise)"),
    ):
        x = ms[name]
        if len(x):
            rows.append({"timed": label, "cells": int(len(x)), "p50_ms": float(np.percentile(x, 50)),
                         "p95_ms": float(np.percentile(x, 95)), "mean_ms": float(x.mean())})  # fmt: skip
    base = rows[0]["p50_ms"] if rows else 0.0
    for r in rows:
        r["p50_vs_baseline"] = round(r["p50_ms"] / base, 2) if base else None
    console = Console(width=160)
    table = RichTable(title=f"model source cost per cell ({books} test workbooks, same run)")
    for col in ("timed", "cells", "p50 ms", "p95 ms", "mean ms", "p50 / baseline"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["timed"], str(r["cells"]), f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}",
                      f"{r['mean_ms']:.1f}", str(r["p50_vs_baseline"]))  # fmt: skip
    console.print(table)
    if len(kept):
        console.print(
            f"model load {load_s:.2f} s; beam entries kept as formulas per cell: mean "
            f"{kept.mean():.2f} of 5; cells with at least one: {float((kept > 0).mean()):.3f}"
        )
    with_model = ms["with"]
    tgts = []
    if len(with_model):
        p50, p95 = float(np.percentile(with_model, 50)), float(np.percentile(with_model, 95))
        tgts = [
            {"name": "latency p50 ms with the model (with preview)", "value": round(p50, 2),
             "target": 30.0, "met": p50 <= 30.0},
            {"name": "latency p95 ms with the model (with preview)", "value": round(p95, 2),
             "target": 150.0, "met": p95 <= 150.0},
        ]  # fmt: skip
        for t in tgts:
            console.print(f"{t['name']}: {t['value']} (target {t['target']}, met: {t['met']})")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        extra = {"model_load_s": round(load_s, 3), "books": books, "threads": args.threads,
                 "kept_mean": float(kept.mean()) if len(kept) else None,
                 "cells_with_model_candidates": float((kept > 0).mean()) if len(kept) else None}  # fmt: skip
        payload = {"results": [*rows, extra], "targets": tgts}
        args.json.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
