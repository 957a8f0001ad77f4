"""How long `fortap cell-types` takes to type a sheet of about 5,000 cells, against reading it.

    .venv/bin/python bench/cell_types_speed.py [--model models/cell-types] [--rows 248]
        [--repeats 3] [--json PATH]

Writes one workbook (`make_book`: a title, a header row, `--rows` rows of a label and 19
numbers, a total row and a note; 5,002 cells at the default 248 rows) into a temporary folder,
then measures, best of `--repeats`:
- `command`: what a user runs, `fortap cell-types BOOK --json` in a fresh process (start-up,
  imports, reading, typing, the JSON), with the shipped model unless `--model`;
- in one process, each stage of it: `read` (`read_workbook`, the baseline: every command that
  opens the book pays it), `load` (`CellTyper.load`) and `type` (`CellTyper.type_sheet` on the
  sheet as `fortap cell-types` shows it to the model, `saus.as_saus`).
Prints the table and the ratio of the command to reading alone. Target (issue 55): the command
types the sheet within 3 s on 2 cores; the model's size is printed beside it (the shipped one
has no encoder).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import openpyxl

from fortap.sheet.read import read_workbook
from fortap.tasks.cell_types.cell_typer import SHIPPED, CellTyper
from fortap.tasks.cell_types.saus import as_saus

TARGET_S = 3.0  # seconds for the command on a sheet of ~5,000 cells (issue 55; 10 s in issue 43)
COLS = 20


def make_book(path: Path, rows: int) -> int:
    """A statistical-abstract-like sheet; returns its number of non-empty cells."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.cell(1, 1, "Table 1. Shipments by state and year (millions of dollars)")
    ws.cell(2, 1, "State")
    for c in range(2, COLS + 1):
        ws.cell(2, c, 1990 + c)
    for r in range(rows):
        ws.cell(3 + r, 1, f"State {r}")
        for c in range(2, COLS + 1):
            ws.cell(3 + r, c, (r * 37 + c * 11) % 997 + 0.5)
    total = 3 + rows
    ws.cell(total, 1, "Total")
    for c in range(2, COLS + 1):
        ws.cell(total, c, sum((r * 37 + c * 11) % 997 + 0.5 for r in range(rows)))
    ws.cell(total + 2, 1, "Source: a generated workbook for bench/cell_types_speed.py.")
    wb.save(path)
    return 1 + COLS + rows * COLS + COLS + 1


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=SHIPPED)
    ap.add_argument("--rows", type=int, default=248, help="data rows (20 cells each)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", type=Path, help="write results and targets here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        book = Path(tmp) / "shipments.xlsx"
        cells = make_book(book, args.rows)
        fortap = Path(sys.executable).with_name("fortap")
        command = [str(fortap), "cell-types", str(book), "--model", str(args.model), "--json"]

        def run_command() -> None:
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode:
                raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")
            typed = len(json.loads(done.stdout)["cells"])
            if typed != cells:
                raise SystemExit(f"the command typed {typed} cells of {cells}")

        seconds = {"command": best(run_command, args.repeats)}
        seconds["read"] = best(lambda: read_workbook(book), args.repeats)
        seconds["load"] = best(lambda: CellTyper.load(args.model), args.repeats)
        typer = CellTyper.load(args.model)
        sheet = as_saus(read_workbook(book).sheets[0])
        seconds["type"] = best(lambda: typer.type_sheet(sheet), args.repeats)
    size = folder_mb(args.model)
    print(f"a sheet of {cells} cells, model {args.model} ({typer.kind}, {size:.1f} MB: "
          f"{typer.summary}); {os.cpu_count()} cores, best of {args.repeats}")  # fmt: skip
    print(f"\n{'stage':10} {'seconds':>8} {'cells/s':>9}")
    for name, value in seconds.items():
        print(f"{name:10} {value:8.2f} {cells / value:9.0f}")
    ratio = seconds["command"] / seconds["read"]
    print(f"\ncommand / read (the baseline): {ratio:.1f}x")
    met = seconds["command"] <= TARGET_S
    target = {"name": f"fortap cell-types --json on a sheet of {cells} cells, seconds",
              "value": seconds["command"], "target": TARGET_S, "met": met}  # fmt: skip
    print(
        f"target {target['name']}: {target['value']:.2f} vs {TARGET_S} {'met' if met else 'NOT met'}"
    )
    if args.json:
        results = [{"stage": k, "seconds": v, "cells": cells} for k, v in seconds.items()]
        results.append({"model": str(args.model), "kind": typer.kind, "model_mb": size,
                        "cores": os.cpu_count(), "command_over_read": ratio})  # fmt: skip
        args.json.write_text(json.dumps({"results": results, "targets": [target]}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
