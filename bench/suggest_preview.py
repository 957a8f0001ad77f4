"""Latency of `Suggester.suggest` with value previews, per cell, workbook already loaded.

For each test-side workbook (the formula-prediction split, `fortap.suggest.books.side_of`) under
the given paths, `--per-book` formula cells spread over the workbook (`books.targets_of`) are
asked for `--top` suggestions; each call hides the cell's own formula, generates, ranks and
previews the shortlist (top + 3), bounded as `suggest` bounds them (`preview_budget`).
Reported per workbook and pooled: load seconds (read + context + formualizer load and
evaluation), p50/p95 (and max) of the whole call, of its preview part, and
of the same shortlist previewed through the loaded engine instead (the baseline: formualizer's
`evaluate_cell` on the workbook itself), with their ratio.

    python bench/suggest_preview.py ../shared/data --per-book 20 --json out.json

Targets (issue 19): p50 <= 30 ms and p95 <= 150 ms per cell with previews.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from fortap.corpus.spread import spread
from fortap.errors import FortapError
from fortap.suggest.books import side_of, targets_of, workbook_files
from fortap.suggest.engine import SHORTLIST_EXTRA, Suggester

P50_MS, P95_MS = 30.0, 150.0


def measure_book(path: Path, per_book: int, top: int, baseline: bool) -> dict:
    """One workbook's load time and per-cell timings (ms lists)."""
    start = time.perf_counter()
    sug = Suggester.open(path)
    load = time.perf_counter() - start
    targets = spread(targets_of(sug.context), per_book)
    total, preview, engine = [], [], []
    for t in targets:
        start = time.perf_counter()
        got = sug.ranking(t, top)  # what `suggest` runs, its parts timed
        total.append(1e3 * (time.perf_counter() - start))
        preview.append(got.preview_ms)
        if baseline:  # the same shortlist previewed through the loaded engine
            start = time.perf_counter()
            for cand, _ in got.ranked[: top + SHORTLIST_EXTRA]:
                sug.previewer.preview(t.sheet, t.row + 1, t.col + 1, cand.formula, "engine")
            engine.append(1e3 * (time.perf_counter() - start))
    n_formulas = sum(len(s.cells) for s in sug.context.sheets.values())
    return {"path": path, "load_s": load, "formulas": n_formulas,
            "total": total, "preview": preview, "engine": engine}  # fmt: skip


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(xs, q)) if xs else float("nan")


def row_of(name: str, load: float, formulas: int, total, preview, engine) -> dict:
    p50e = pct(engine, 50)
    return {
        "workbook": name, "formulas": formulas, "cells": len(total), "load_s": round(load, 2),
        "p50_ms": round(pct(total, 50), 1), "p95_ms": round(pct(total, 95), 1),
        "max_ms": round(max(total), 1) if total else float("nan"),
        "preview_p50_ms": round(pct(preview, 50), 1), "preview_p95_ms": round(pct(preview, 95), 1),
        "engine_preview_p50_ms": round(p50e, 1), "engine_preview_p95_ms": round(pct(engine, 95), 1),
        "engine_over_cells_p50": round(p50e / max(pct(preview, 50), 1e-3), 1) if engine else None,
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", type=Path, default=[Path("../shared/data")])
    ap.add_argument("--side", default="test", help="Split side to measure (train/dev/test).")
    ap.add_argument("--per-book", type=int, default=20)
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--max-books", type=int, default=0, help="0 = every workbook of the side.")
    ap.add_argument("--no-baseline", action="store_true", help="Skip the engine-route baseline.")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    files = [f for f in workbook_files(args.paths) if side_of(f) == args.side]
    files = spread(files, args.max_books or None)
    rows, pooled, failed = [], {"total": [], "preview": [], "engine": []}, []
    for path in files:
        try:
            m = measure_book(path, args.per_book, args.top, not args.no_baseline)
        except FortapError as err:
            failed.append({"path": str(path), "error": str(err)})
            continue
        if not m["total"]:
            continue
        for key in pooled:
            pooled[key] += m[key]
        rows.append(row_of(path.name, m["load_s"], m["formulas"], m["total"], m["preview"],
                           m["engine"]))  # fmt: skip
        r = rows[-1]
        print(f"{r['workbook'][:40]:40} {r['formulas']:7d} {r['cells']:4d} {r['load_s']:6.2f}s "
              f"{r['p50_ms']:7.1f} {r['p95_ms']:7.1f} {r['preview_p50_ms']:7.1f} "
              f"{r['preview_p95_ms']:7.1f} {r['engine_preview_p50_ms']:8.1f} "
              f"{r['engine_preview_p95_ms']:8.1f}", flush=True)  # fmt: skip
    total = row_of("ALL", sum(r["load_s"] for r in rows), sum(r["formulas"] for r in rows),
                   pooled["total"], pooled["preview"], pooled["engine"])  # fmt: skip
    rows.append(total)
    print("columns: workbook formulas cells load p50 p95 preview_p50 preview_p95 "
          "engine_preview_p50 engine_preview_p95 (ms)")  # fmt: skip
    print(json.dumps(total))
    for f in failed:
        print("skipped:", f["path"], "-", f["error"])
    targets = [
        {"name": "p50_ms", "value": total["p50_ms"], "target": P50_MS,
         "met": total["p50_ms"] <= P50_MS},
        {"name": "p95_ms", "value": total["p95_ms"], "target": P95_MS,
         "met": total["p95_ms"] <= P95_MS},
    ]  # fmt: skip
    for t in targets:
        print(
            f"target {t['name']}: {t['value']} <= {t['target']}: {'met' if t['met'] else 'NOT met'}"
        )
    if args.json:
        args.json.write_text(json.dumps({"results": rows, "targets": targets, "skipped": failed},
                                        indent=1) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
