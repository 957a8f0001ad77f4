"""`fortap suggest` latency on the workbooks with the most formula cells (`bench/suggest.py`).

Speed, not quality: the `n` workbooks of the bench's folders with the most formula cells,
whatever their side of the split, as `fortap ingest` counts them (its `report.json`, or, without
one, counted here with fortap's reader). Each is opened part by part, so load time is reported
apart with its cost named (read: fortap's reader, .xls/.ods conversion included; context: every
formula parsed and grouped; preview engine: formualizer's load, full evaluation and the array
settle; ranker). Then up to `per_book` targets spread over the workbook (`books.targets_of`) are
asked as `Suggester.ranking` answers `fortap suggest`, with k=5, the target hidden, previews
included and the first call on each sheet included (per-sheet indexes are built then).

Baseline, same run, same targets: the same shortlist previewed with no bound
(`preview_budget.UNBOUNDED`: copies up to 200,000 cells, any chain, no time per call), plus
the same call's generating and ranking time; and the ranker alone (generate + rank).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

from fortap.corpus.spread import spread
from fortap.suggest.books import targets_of, workbook_files
from fortap.suggest.context import BookContext
from fortap.suggest.engine import SHORTLIST_EXTRA, Suggester, load_ranker
from fortap.suggest.preview import Previewer
from fortap.suggest.preview_budget import UNBOUNDED

P50_MS, P95_MS, MAX_MS = 30.0, 150.0, 1000.0  # issue 35, item 3


def largest_books(folders: list[Path], n: int, report: Path | None) -> list[tuple[Path, int]]:
    """The `n` workbooks under `folders` with the most formula cells, with their counts."""
    files = workbook_files(folders)
    counts = _report_counts(report, files) if report else _read_counts(files)
    return sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))[:n]


def _report_counts(report: Path, files: list[Path]) -> dict[Path, int]:
    """Formula cells per workbook from an ingest `report.json` (its paths are relative to
    where ingest ran: matched by their part under the data folder)."""
    by_tail = {_tail(f): f for f in files}
    out = {}
    for entry in json.loads(report.read_text())["files"]:
        found = by_tail.get(_tail(Path(entry["path"])))
        if found is not None and entry.get("sheets"):
            out[found] = sum(s.get("formula_cells", 0) for s in entry["sheets"])
    return out


def _tail(path: Path) -> str:
    parts = path.parts
    return "/".join(parts[parts.index("data") + 1 :]) if "data" in parts else str(path)


def _read_counts(files: list[Path]) -> dict[Path, int]:
    from fortap.sheet.read import read_workbooks

    out = {}
    for path, book in read_workbooks(files):
        if not isinstance(book, Exception):
            out[path] = sum(c.formula is not None for s in book.sheets for c in s.cells.values())
    return out


def open_timed(path: Path, ranker: Path | None) -> tuple[Suggester, dict[str, float]]:
    """`Suggester.open`, part by part, with each part's seconds."""
    from fortap.sheet.read import DEFAULT_LIMITS, read_workbook

    parts, start = {}, time.perf_counter()
    book = read_workbook(path, DEFAULT_LIMITS)
    parts["read"], start = time.perf_counter() - start, time.perf_counter()
    context = BookContext.from_workbook(book)
    parts["context"], start = time.perf_counter() - start, time.perf_counter()
    previewer = Previewer.load(book)
    parts["preview engine"], start = time.perf_counter() - start, time.perf_counter()
    rank = load_ranker(ranker)
    parts["ranker"] = time.perf_counter() - start
    return Suggester(path, book, rank, previewer, None, context), parts


def measure_book(path: Path, per_book: int, ranker: Path | None) -> dict:
    """One workbook's load parts and per-call ms: bounded (what `suggest` runs), ranker
    alone, and with the same shortlist previewed unbounded."""
    sug, load = open_timed(path, ranker)
    calls, seen = [], set()
    for t in spread(targets_of(sug.context), per_book):
        hidden = frozenset({(t.sheet, t.row, t.col)})
        start = time.perf_counter()
        got = sug.ranking(t, 5)
        ms = 1000 * (time.perf_counter() - start)
        bounded_limits, sug.previewer.limits = sug.previewer.limits, UNBOUNDED
        start = time.perf_counter()
        for cand, _ in got.ranked[: 5 + SHORTLIST_EXTRA]:
            sug.previewer.preview(t.sheet, t.row + 1, t.col + 1, cand.formula, hidden=hidden)
        unbounded = 1000 * (time.perf_counter() - start)
        sug.previewer.limits = bounded_limits
        not_computed = sum(not p.computed for p in got.previews.values())
        calls.append({"sheet": t.sheet, "first": t.sheet not in seen, "ms": ms,
                      "rank_ms": got.rank_ms, "unbounded_ms": got.rank_ms + unbounded,
                      "not_computed": not_computed})  # fmt: skip
        seen.add(t.sheet)
    return {"book": str(path), "load_s": load, "calls": calls}


def summary(calls: list[dict], key: str = "ms") -> dict:
    xs = np.array([c[key] for c in calls]) if calls else np.zeros(0)
    if not len(xs):
        return {"calls": 0}
    return {"calls": len(xs), "p50": float(np.percentile(xs, 50)),
            "p95": float(np.percentile(xs, 95)), "max": float(xs.max())}  # fmt: skip


def latency_rows(books: list[tuple[Path, int]], per_book: int, ranker: Path | None) -> list[dict]:
    """One row per workbook (load parts, its calls' p50/p95/max) and the pooled row."""
    rows, pooled = [], []
    for i, (path, formulas) in enumerate(books, start=1):
        print(f"latency {i}/{len(books)}: {path.name} ({formulas:,} formula cells)", flush=True)
        try:
            m = measure_book(path, per_book, ranker)
        except Exception as err:  # noqa: BLE001 - a bench reports a broken file and goes on
            rows.append({"latency_book": str(path), "error": str(err)[:200]})
            continue
        pooled += m["calls"]
        rows.append(_row(str(path), formulas, m["calls"], m["load_s"]))
    rows.append(_row("ALL", sum(f for _, f in books), pooled, None))
    return rows


def _row(name: str, formulas: int, calls: list[dict], load: dict | None) -> dict:
    first = [c for c in calls if c["first"]]
    row = {"latency_book": name, "formula_cells": formulas, **summary(calls),
           "first_call_max": summary(first).get("max"),
           "ranker_only": summary(calls, "rank_ms"),
           "unbounded": summary(calls, "unbounded_ms"),
           "not_computed_previews": sum(c["not_computed"] for c in calls)}  # fmt: skip
    if load is not None:
        row["load_s"] = {k: round(v, 3) for k, v in load.items()}
    return row


def latency_targets(pooled: dict) -> list[dict]:
    out = []
    for key, target in (("p50", P50_MS), ("p95", P95_MS), ("max", MAX_MS)):
        value = pooled.get(key, float("nan"))
        out.append({"name": f"latency {key} ms, largest workbooks (previews and first calls)",
                    "value": round(value, 1), "target": target, "met": bool(value <= target)})  # fmt: skip
    return out


def print_large_workbooks(rows: list[dict], console: Console) -> None:
    table = RichTable(title="suggest per call on the largest workbooks, ms (p50 / p95 / max)")
    for col in ("workbook", "formulas", "calls", "bounded", "first call max", "unbounded",
                "ranker only", "not computed", "load s (read / context / engine / ranker)"):  # fmt: skip
        table.add_column(col)
    for r in rows:
        if "error" in r:
            table.add_row(Path(r["latency_book"]).name, "", "", f"error: {r['error'][:60]}")
            continue
        if not r.get("calls"):
            continue
        load = r.get("load_s")
        table.add_row(
            Path(r["latency_book"]).name[:44], f"{r['formula_cells']:,}", str(r["calls"]),
            _ppm(r), f"{r['first_call_max']:.0f}", _ppm(r["unbounded"]), _ppm(r["ranker_only"]),
            str(r["not_computed_previews"]),
            " / ".join(f"{v:.2f}" for v in load.values()) if load else "",
        )  # fmt: skip
    console.print(table)
    pooled = rows[-1]
    if pooled.get("calls"):
        for key in ("p95", "max"):
            console.print(f"bounded / unbounded {key}: {pooled[key]:.1f} / "
                          f"{pooled['unbounded'][key]:.1f} ms = "
                          f"{pooled[key] / max(pooled['unbounded'][key], 1e-9):.3f}")  # fmt: skip


def _ppm(s: dict) -> str:
    return f"{s['p50']:.1f} / {s['p95']:.1f} / {s['max']:.0f}"
