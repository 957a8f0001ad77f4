"""Ingest speed against a bare openpyxl load of the same workbooks, measured in one run.

    .venv/bin/python bench/ingest.py [--json PATH] [--repeat N] [--profile]

Files: the .xlsx workbooks of ../shared/data/euses_excelint/subjects_xlsx and
../shared/data/tasi/Table Structure Dataset/Subject. For each file, in turn:
* `openpyxl` (the baseline): `openpyxl.load_workbook(path)`, formulas kept, nothing else;
* `ingest`: `fortap.ingest.ingest_file(path)`, the path `fortap ingest` runs per file:
  `read_workbook` + `detect_tables` + Table JSON serialisation + the report counts;
* then, untimed in the totals, the same three components one by one (read, detect, JSON), so
  the breakdown shows where the ingest time goes.
The two timed rows alternate which goes first from file to file, so background load and
cache warmth hit both alike. Each is the median of `--repeat` runs per file (default 1).
workbooks/s = files / summed seconds; cells/s = non-empty cells (as `read_workbook` counts
them) / summed seconds. `--profile` adds a cProfile of the ingest row, top functions by
cumulative time.

Target: ingest time <= 2 x bare openpyxl load time (summed over all files).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import pstats
import statistics
import time
import warnings
from pathlib import Path

import openpyxl
from rich.console import Console
from rich.table import Table

from fortap.errors import SheetError
from fortap.ingest import ingest_file, table_line
from fortap.sheet import read_workbook
from fortap.table import detect_tables

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FOLDERS = (
    DATA / "euses_excelint" / "subjects_xlsx",
    DATA / "tasi" / "Table Structure Dataset" / "Subject",
)
TARGET_RATIO = 2.0


def timed(fn, repeat: int) -> float:
    """Median wall seconds of `repeat` calls of `fn`."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bare_load(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        openpyxl.load_workbook(path)


def components(path: Path) -> dict[str, float] | None:
    """Seconds spent in each ingest component for one file; None when the file is skipped."""
    t0 = time.perf_counter()
    try:
        book = read_workbook(path)
    except SheetError:
        return None
    t1 = time.perf_counter()
    tables = []
    for sheet in book.sheets:
        # A sheet that trips detection is a sheet error in ingest_file; nothing to time here.
        with contextlib.suppress(Exception):
            tables.extend(detect_tables(sheet))
    t2 = time.perf_counter()
    for t in tables:
        table_line(t)
    t3 = time.perf_counter()
    return {"read": t1 - t0, "detect": t2 - t1, "json": t3 - t2}


def measure(files: list[Path], repeat: int) -> tuple[dict, dict, dict]:
    """Summed seconds per row, counts, and per-component seconds over the files."""
    seconds = {"openpyxl": 0.0, "ingest": 0.0}
    counts = {"files": 0, "read": 0, "cells": 0, "tables": 0, "formula_cells": 0, "file_ratios": []}
    parts = {"read": 0.0, "detect": 0.0, "json": 0.0}
    for i, path in enumerate(files):
        result = None

        def run_ingest_once(path=path):
            nonlocal result
            result = ingest_file(str(path))

        order = [("openpyxl", lambda p=path: bare_load(p)), ("ingest", run_ingest_once)]
        this = {}
        for name, fn in order if i % 2 == 0 else reversed(order):
            this[name] = timed(fn, repeat)
            seconds[name] += this[name]
        counts["file_ratios"].append(this["ingest"] / this["openpyxl"])
        report = result.report
        counts["files"] += 1
        counts["read"] += report.status == "ok"
        counts["cells"] += sum(s.cells for s in report.sheets)
        counts["tables"] += report.tables
        counts["formula_cells"] += sum(s.formula_cells for s in report.sheets)
        for name, value in (components(path) or {}).items():
            parts[name] += value
    return seconds, counts, parts


def profile(files: list[Path], top: int = 25) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for path in files:
        ingest_file(str(path))
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="write results and targets here")
    ap.add_argument("--repeat", type=int, default=1, help="timed runs per file and row (median)")
    ap.add_argument("--profile", action="store_true", help="cProfile the ingest row")
    args = ap.parse_args()
    files = sorted(p for folder in FOLDERS for p in folder.glob("*.xlsx"))
    if not files:
        raise SystemExit(f"no .xlsx files under {', '.join(map(str, FOLDERS))}")
    for path in files[:2]:  # warm imports and caches outside the timing
        bare_load(path)
        ingest_file(str(path))
    seconds, counts, parts = measure(files, args.repeat)

    rows = []
    for name in ("openpyxl", "ingest"):
        s = seconds[name]
        rows.append(
            {
                "name": name,
                "files": counts["files"],
                "seconds": round(s, 3),
                "workbooks_per_s": round(counts["files"] / s, 2),
                "cells_per_s": round(counts["cells"] / s),
                "ratio_to_openpyxl": round(s / seconds["openpyxl"], 3),
            }
        )
    ratio = seconds["ingest"] / seconds["openpyxl"]
    ratios = counts.pop("file_ratios")
    spread = statistics.quantiles(ratios, n=10)
    view = Table(title=f"ingest vs bare openpyxl load ({counts['files']} .xlsx files)")
    for col in ("row", "seconds", "workbooks/s", "cells/s", "x openpyxl"):
        view.add_column(col, justify="right" if col != "row" else "left")
    for r in rows:
        view.add_row(
            r["name"],
            f"{r['seconds']:.2f}",
            f"{r['workbooks_per_s']:.1f}",
            f"{r['cells_per_s']:,}",
            f"{r['ratio_to_openpyxl']:.2f}",
        )
    console = Console()
    console.print(view)
    total_parts = sum(parts.values())
    breakdown = ", ".join(f"{k} {v:.2f}s ({v / total_parts:.0%})" for k, v in parts.items())
    console.print(
        f"read {counts['read']}/{counts['files']} files, {counts['cells']:,} cells, "
        f"{counts['formula_cells']:,} formula cells, {counts['tables']} tables; "
        f"ingest components: {breakdown}; per-file ingest/openpyxl ratio: median "
        f"{statistics.median(ratios):.2f}, p10 {spread[0]:.2f}, p90 {spread[-1]:.2f}, "
        f"max {max(ratios):.2f}",
        highlight=False,
    )
    targets = [
        {
            "name": "ingest_time_over_openpyxl_load",
            "value": round(ratio, 3),
            "target": TARGET_RATIO,
            "met": ratio <= TARGET_RATIO,
        }
    ]
    console.print(
        f"target ingest <= {TARGET_RATIO}x openpyxl: {ratio:.2f}x "
        f"({'met' if ratio <= TARGET_RATIO else 'NOT met'})",
        highlight=False,
    )
    if args.profile:
        console.print(profile(files), highlight=False, markup=False)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "results": rows,
            "components": parts,
            "counts": counts,
            "file_ratio_median": statistics.median(ratios),
            "targets": targets,
        }
        args.json.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
