"""Small literal workbooks for the audit tests, written with openpyxl (no cached values: the
preview engine computes them)."""

from __future__ import annotations

from pathlib import Path

import openpyxl

SALES = [("North", 120, 130), ("South", 80, 95), ("East", 150, 160), ("West", 70, 60),
         ("Mid", 40, 45)]  # fmt: skip


def typed_total(path: Path) -> Path:
    """Sales!A1:D7: Region | Q1 | Q2 | Total (=B+C), but D4 holds 310 typed (=B4+C4 gives 310);
    row 7 totals =SUM(B2:B6) ... with D7 summing the column too."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Q1", "Q2", "Total"])
    for i, (region, q1, q2) in enumerate(SALES, start=2):
        ws.append([region, q1, q2, q1 + q2 if i == 4 else f"=B{i}+C{i}"])
    ws.append(["Total", "=SUM(B2:B6)", "=SUM(C2:C6)", "=SUM(D2:D6)"])
    wb.save(path)
    return path


def odd_formula(path: Path) -> Path:
    """Prices!A1:C7: Qty | Price | Amount (=A*B of its own row), but C5 =A5*B4."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Prices"
    ws.append(["Qty", "Price", "Amount"])
    for i, (q, p) in enumerate([(3, 2.5), (4, 1.25), (10, 0.5), (7, 3.0), (2, 9.0), (5, 1.0)], 2):
        ws.append([q, p, "=A5*B4" if i == 5 else f"=A{i}*B{i}"])
    wb.save(path)
    return path


def short_range(path: Path) -> Path:
    """Budget!A1:E5: Item | Y1 | Y2 | Y3 | Sum (=SUM(B:D) of its row), but E4 =SUM(C4:D4)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    ws.append(["Item", "Y1", "Y2", "Y3", "Sum"])
    rows = [("Rent", 900, 910, 935), ("Food", 310, 290, 305), ("Fuel", 120, 95, 130),
            ("Books", 40, 55, 20)]  # fmt: skip
    for i, row in enumerate(rows, start=2):
        ws.append([*row, f"=SUM(C{i}:D{i})" if i == 4 else f"=SUM(B{i}:D{i})"])
    wb.save(path)
    return path


def clean(path: Path) -> Path:
    """A sheet with nothing to find: inputs, a filled-down formula and its column total."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Clean"
    ws.append(["Item", "Cost", "Tax"])
    for i, cost in enumerate([100, 250, 80, 40], start=2):
        ws.append([f"item {i}", cost, f"=B{i}*0.2"])
    ws.append(["Total", "=SUM(B2:B5)", "=SUM(C2:C5)"])
    wb.save(path)
    return path


def year_block(path: Path, typed: bool = False) -> Path:
    """Plan!A1:F6: a growth rate in B1, typed years 2020-2040 in B3:F3 over a block whose rows
    are dragged right (=B4*(1+$B$1) ...) and a profit row; with `typed`, E4 holds the value
    =D4*(1+$B$1) gives (133.1), typed over that one formula of the block."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    ws.append(["Growth", 0.1])
    ws.append([])
    ws.append([None, 2020, 2025, 2030, 2035, 2040])
    for row, start in ((4, 100), (5, 60)):
        grow = [f"={c}{row}*(1+$B$1)" for c in "BCDE"]
        if typed and row == 4:
            grow[2] = 133.1
        ws.append(["Sales" if row == 4 else "Costs", start, *grow])
    ws.append(["Profit", *(f"={c}4-{c}5" for c in "BCDEF")])
    wb.save(path)
    return path
