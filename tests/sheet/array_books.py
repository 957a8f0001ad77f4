"""A literal workbook with array (CSE) formulas and an Excel table, and its expected answers.

`Data`: names B5:B12 and values C5:C12; labels E5:E8; F5:F7 hold the array formula summing
row number x value over the rows whose name is the label (F8, under them, is empty); D5:D12
one array formula over the whole column (`=C5:C12*2`). `Sales`: the table `Sales` (A1:D6, a
totals row) whose `Total` column multiplies this row's Qty by its Price.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.worksheet.table import Table

NAMES = ["a", "b", "a", "c", "b", "a", "c", "a"]  # B5:B12
VALUES = [3, 7, 2, 9, 6, 1, 8, 4]  # C5:C12
LABELS = ["a", "b", "c", "b"]  # E5:E8


def by_label(row: int) -> str:
    """The array formula of column F at 1-based `row`, as openpyxl writes it."""
    return f"=SUM(IF($B$5:$B$12=E{row},ROW($C$5:$C$12)*$C$5:$C$12))"


def expected(label: str) -> float:
    """What `by_label` gives for `label` with array semantics (row number x value, summed)."""
    return float(
        sum((5 + i) * v for i, (n, v) in enumerate(zip(NAMES, VALUES, strict=True)) if n == label)
    )


SALES = [("East", 2, 3.5), ("West", 4, 1.25), ("East", 5, 2.0), ("North", 1, 10.0)]  # A2:C5
THIS_ROW_TOTAL = "=Sales[[#This Row],[Qty]]*Sales[[#This Row],[Price]]"


def array_book(folder: Path, name: str = "arrays.xlsx") -> Path:
    """Save the workbook (module doc) in `folder`; D5 of `Sales` (its last data row's Total)
    is left empty."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws["B4"], ws["C4"], ws["E4"], ws["F4"] = "name", "value", "label", "by label"
    for i, (n, v) in enumerate(zip(NAMES, VALUES, strict=True)):
        ws.cell(5 + i, 2, n)
        ws.cell(5 + i, 3, v)
    for i, label in enumerate(LABELS):
        ws.cell(5 + i, 5, label)
    for row in (5, 6, 7):
        ws[f"F{row}"] = ArrayFormula(f"F{row}", by_label(row))
    ws["D5"] = ArrayFormula("D5:D12", "=C5:C12*2")
    sales = wb.create_sheet("Sales")
    sales.append(["Region", "Qty", "Price", "Total"])
    for i, (region, qty, price) in enumerate(SALES, start=2):
        sales.append([region, qty, price, THIS_ROW_TOTAL if i < 5 else None])
    sales.append(["Total", "=SUBTOTAL(109,Sales[Qty])", None, None])
    sales.add_table(Table(displayName="Sales", ref="A1:D6", totalsRowCount=1))
    path = folder / name
    wb.save(path)
    return path
