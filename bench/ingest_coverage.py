"""How many real workbooks `fortap.sheet` reads, whether it finds every formula, and how fast.

For each data folder under ../shared/data: files, files read, files skipped (by reason), and
formula-cell counts checked per workbook against an independent count:
- .xlsx/.xlsm: a bare `openpyxl.load_workbook(path)` (the baseline, also timed), counting
  cells whose `data_type == "f"`. openpyxl marks array-formula masters and data-table masters
  with "f" too (their value is an `ArrayFormula` / `DataTableFormula` object), so the count
  is "every cell that holds a `<f>` element", shared-formula children included.
- .xls: the SheetJS census in the folder's `xls_formulas.sheetjs.jsonl.gz`; a workbook passes
  when our count is within 1 % of it. Workbooks outside 1 % are listed with per-sheet counts.

Usage: .venv/bin/python bench/ingest_coverage.py [--json PATH] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

import openpyxl

from fortap.errors import SheetError
from fortap.sheet import ReadLimits, read_workbooks
from fortap.sheet.convert import conversion_cache_dir, convert_to_xlsx

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FOLDERS = (
    "euses_excelint",
    "tasi",
    "checkcell_benchmarks",
    "poi_testdata",
    "sheetcopilot",
    "hitab/annotation_examples",
)
SUFFIXES = (".xlsx", ".xlsm", ".xls")


def openpyxl_formula_count(path: Path) -> dict[str, int]:
    """Per-sheet formula cells as a bare openpyxl load sees them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wb = openpyxl.load_workbook(path)
    return {
        ws.title: sum(1 for c in ws._cells.values() if c.data_type == "f") for ws in wb.worksheets
    }


def sheetjs_counts(folder: Path) -> dict[Path, Counter]:
    """Per-workbook, per-sheet formula counts from the folder's SheetJS census."""
    counts: dict[Path, Counter] = defaultdict(Counter)
    census = folder / "xls_formulas.sheetjs.jsonl.gz"
    if census.exists():
        with gzip.open(census, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                path = folder / row["file"]
                if not path.exists():  # poi_testdata names files relative to files/
                    path = folder / "files" / row["file"]
                counts[path.resolve()][row["sheet"]] += 1
    return counts


def bench_folder(name: str, limits: ReadLimits, cache_dir: Path) -> tuple[dict, list[dict]]:
    folder = DATA / name
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())
    xls = [p for p in files if p.suffix.lower() == ".xls"]
    t0 = time.perf_counter()
    convert_to_xlsx(xls, limits, cache_dir)  # warms the cache; errors resurface in the read
    t_convert = time.perf_counter() - t0
    js = sheetjs_counts(folder)
    row = {
        "folder": name,
        "files": len(files),
        "read": 0,
        "skipped": Counter(),
        "xlsx_checked": 0,
        "xlsx_equal": 0,
        "xls_checked": 0,
        "xls_within_1pct": 0,
        "xls_exact": 0,
        "formula_cells": 0,
        "t_ours_xlsx_s": 0.0,
        "t_openpyxl_xlsx_s": 0.0,
        "t_convert_s": t_convert,
    }
    outliers = []
    for path in files:
        t0 = time.perf_counter()
        (_, result), *_ = list(read_workbooks([path], limits, cache_dir))
        elapsed = time.perf_counter() - t0
        if isinstance(result, SheetError):
            row["skipped"][result.reason] += 1
            outliers.append({"file": str(path.relative_to(DATA)), "error": str(result)})
            continue
        row["read"] += 1
        ours = {s.name: sum(1 for _ in s.formula_cells()) for s in result.sheets}
        row["formula_cells"] += sum(ours.values())
        if path.suffix.lower() == ".xls":
            theirs = js.get(path.resolve(), Counter())
            row["xls_checked"] += 1
            a, b = sum(ours.values()), sum(theirs.values())
            row["xls_exact"] += a == b
            if abs(a - b) <= 0.01 * max(a, b):
                row["xls_within_1pct"] += 1
            else:
                outliers.append(_xls_outlier(path, ours, theirs))
            continue
        t0 = time.perf_counter()
        baseline = openpyxl_formula_count(path)
        row["t_openpyxl_xlsx_s"] += time.perf_counter() - t0
        row["t_ours_xlsx_s"] += elapsed
        row["xlsx_checked"] += 1
        if sum(ours.values()) == sum(baseline.values()) and ours == {
            k: v for k, v in baseline.items() if k in ours
        }:
            row["xlsx_equal"] += 1
        else:
            outliers.append(
                {"file": str(path.relative_to(DATA)), "ours": ours, "openpyxl": baseline}
            )
    return row, outliers


def _xls_outlier(path: Path, ours: dict, theirs: Counter) -> dict:
    sheets = sorted(set(ours) | set(theirs))
    per_sheet = {
        s: [ours.get(s, 0), theirs.get(s, 0)] for s in sheets if ours.get(s, 0) != theirs.get(s, 0)
    }
    return {
        "file": str(path.relative_to(DATA)),
        "ours": sum(ours.values()),
        "sheetjs": sum(theirs.values()),
        "sheets_differing [ours, sheetjs]": per_sheet,
    }


def print_table(rows: list[dict]) -> None:
    header = (
        f"{'folder':28} {'files':>5} {'read':>5} {'xlsx =':>9} {'xls ±1%':>9} {'xls =':>9} "
        f"{'formulas':>9} {'ours s':>7} {'opx s':>7} {'ratio':>6} {'conv s':>7}  skipped"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        ratio = (
            r["t_ours_xlsx_s"] / r["t_openpyxl_xlsx_s"] if r["t_openpyxl_xlsx_s"] else float("nan")
        )
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(r["skipped"].items())) or "-"
        print(
            f"{r['folder']:28} {r['files']:5d} {r['read']:5d} "
            f"{r['xlsx_equal']:4d}/{r['xlsx_checked']:<4d} {r['xls_within_1pct']:4d}/{r['xls_checked']:<4d} "
            f"{r['xls_exact']:4d}/{r['xls_checked']:<4d} "
            f"{r['formula_cells']:9,d} {r['t_ours_xlsx_s']:7.2f} {r['t_openpyxl_xlsx_s']:7.2f} "
            f"{ratio:6.2f} {r['t_convert_s']:7.1f}  {skipped}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="write results and targets here")
    ap.add_argument(
        "--cache-dir", type=Path, default=conversion_cache_dir(), help="LibreOffice conversions"
    )
    args = ap.parse_args()
    limits = ReadLimits()
    rows, outliers = [], []
    for name in FOLDERS:
        row, out = bench_folder(name, limits, args.cache_dir)
        rows.append(row)
        outliers.extend(out)
    total = {k: sum(r[k] for r in rows) for k in rows[0] if isinstance(rows[0][k], int | float)}
    total["folder"] = "TOTAL"
    total["skipped"] = sum((r["skipped"] for r in rows), Counter())
    print_table([*rows, total])
    if outliers:
        print("\nworkbooks not read, or whose formula count differs:")
        for o in outliers:
            print(" ", json.dumps(o, ensure_ascii=False))
    ratio = total["t_ours_xlsx_s"] / total["t_openpyxl_xlsx_s"]
    targets = [
        _target("files_read_fraction", total["read"] / total["files"], 0.99, higher=True),
        _target(
            "xlsx_counts_equal_fraction", total["xlsx_equal"] / total["xlsx_checked"], 1.0, True
        ),
        _target(
            "xls_within_1pct_fraction", total["xls_within_1pct"] / total["xls_checked"], 0.95, True
        ),
        _target("xlsx_read_time_vs_bare_openpyxl", ratio, 1.5, higher=False),
    ]
    print()
    for t in targets:
        print(
            f"{t['name']:34} {t['value']:.4f}  target {'>=' if t['name'] != 'xlsx_read_time_vs_bare_openpyxl' else '<='} {t['target']}  {'met' if t['met'] else 'NOT met'}"
        )
    if args.json:
        for r in rows + [total]:
            r["skipped"] = dict(r["skipped"])
        args.json.write_text(
            json.dumps(
                {"results": [*rows, total], "targets": targets, "outliers": outliers}, indent=1
            )
        )


def _target(name: str, value: float, target: float, higher: bool) -> dict:
    met = value >= target if higher else value <= target
    return {"name": name, "value": round(value, 4), "target": target, "met": met}


if __name__ == "__main__":
    main()
