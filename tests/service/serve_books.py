"""Small workbooks the service tests upload, built with openpyxl, with their expected answers."""

from __future__ import annotations

import functools
import io

import openpyxl
from openpyxl.styles import Font

# Budget!D7 is the empty total under March; B7 and C7 hold =SUM(B2:B6) and =SUM(C2:C6)
BUDGET_ROWS = [
    ("Item", "Jan", "Feb", "Mar"),
    ("Rent", 1200, 1200, 1250),
    ("Food", 310, 295, 330),
    ("Travel", 85, 120, 60),
    ("Phone", 40, 40, 45),
    ("Books", 25, 0, 35),
]
TOTAL_CELL = "D7"
TOTAL_FORMULA = "=SUM(D2:D6)"
TOTAL_VALUE = 1250 + 330 + 60 + 45 + 35  # 1720


def budget_book() -> openpyxl.Workbook:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    for row in BUDGET_ROWS:
        ws.append(row)
    ws["A7"] = "Total"
    ws["B7"] = "=SUM(B2:B6)"
    ws["C7"] = "=SUM(C2:C6)"
    ws["F7"] = "=B7+C7+D7"  # the grand total, which depends on the empty D7
    for cell in ("A1", "B1", "C1", "D1", "A7"):
        ws[cell].font = Font(bold=True)
    for row in ws.iter_rows(min_row=2, max_row=7, min_col=2, max_col=4):
        for cell in row:
            cell.number_format = "#,##0"
    ws.merge_cells("E1:F1")
    ws["E1"] = "Household budget"
    ws["F2"] = "fixed"
    notes = wb.create_sheet("Notes")
    notes["A1"] = "Figures in EUR"
    return wb


@functools.cache
def budget_bytes() -> bytes:
    """The budget workbook as .xlsx bytes, made once: openpyxl stamps the save time into the
    file, so two saves can differ in length (a test comparing sizes saw 5,621 against 5,622)."""
    out = io.BytesIO()
    budget_book().save(out)
    return out.getvalue()


def big_sheet_bytes(n_rows: int = 1000, n_cols: int = 10) -> bytes:
    """A sheet of n_rows x n_cols numbers under one header row (10,000 cells by default)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Big"
    ws.append([f"C{c + 1}" for c in range(n_cols)])
    for r in range(n_rows - 1):
        ws.append([r * n_cols + c for c in range(n_cols)])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


# Sales!D4 holds 310 typed by hand inside the column of =B+C totals (=B4+C4 gives 310)
SALES_ROWS = [("North", 120, 130), ("South", 80, 95), ("East", 150, 160), ("West", 70, 60),
              ("Mid", 40, 45)]  # fmt: skip
TYPED_CELL = "D4"
TYPED_FIX = "=B4+C4"


@functools.cache
def typed_total_bytes() -> bytes:
    """Sales!A1:D7: Region | Q1 | Q2 | Total (=B+C of its row) over five regions and a row of
    column sums, but D4 holds 310 typed where =B4+C4 stands in the rows around it."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Q1", "Q2", "Total"])
    for i, (region, q1, q2) in enumerate(SALES_ROWS, start=2):
        ws.append([region, q1, q2, q1 + q2 if f"D{i}" == TYPED_CELL else f"=B{i}+C{i}"])
    ws.append(["Total", "=SUM(B2:B6)", "=SUM(C2:C6)", "=SUM(D2:D6)"])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


# Orders!A1:D10 holds only values: Item | Qty | Price | Amount over eight items, Amount typed as
# Qty * Price, and a Total row whose D10 is typed as the sum of the amounts
ORDER_ROWS = [("Bolts", 12, 3), ("Nuts", 30, 2), ("Washers", 8, 15), ("Screws", 45, 4),
              ("Hinges", 7, 11), ("Brackets", 9, 34), ("Rivets", 50, 6), ("Pins", 13, 5)]  # fmt: skip
ORDER_FORMULAS = {f"D{i}": f"=B{i}*C{i}" for i in range(2, 10)} | {"D10": "=SUM(D2:D9)"}
ORDER_VALUES = {f"D{i}": float(q * p) for i, (_, q, p) in enumerate(ORDER_ROWS, start=2)} | {
    "D10": float(sum(q * p for _, q, p in ORDER_ROWS))
}


@functools.cache
def orders_bytes() -> bytes:
    """The values-only Orders sheet above as .xlsx bytes (no formula anywhere)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Orders"
    ws.append(["Item", "Qty", "Price", "Amount"])
    for item, qty, price in ORDER_ROWS:
        ws.append([item, qty, price, qty * price])
    ws.append(["Total", None, None, sum(q * p for _, q, p in ORDER_ROWS)])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()
