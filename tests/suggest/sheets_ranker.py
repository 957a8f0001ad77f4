"""Literal small workbooks for the candidate, context and ranker tests."""

from __future__ import annotations

from fortap.formula.references import column_index
from fortap.sheet.model import Cell, Sheet, Workbook


def cell(value) -> Cell:
    """`"=B2*2"` a formula (cached value 0), a number, or text."""
    if isinstance(value, str) and value.startswith("="):
        return Cell(0.0, "number", formula=value)
    if isinstance(value, int | float):
        return Cell(float(value), "number")
    return Cell(value, "text")


def sheet(name: str, cells: dict[str, object]) -> Sheet:
    """A sheet from {"B2": value}: 0-based (row, col) keys as `fortap.sheet.model` wants."""
    grid = {}
    for ref, value in cells.items():
        letters = ref.rstrip("0123456789")
        grid[(int(ref[len(letters) :]) - 1, column_index(letters))] = cell(value)
    n_rows = max(r for r, _ in grid) + 1
    n_cols = max(c for _, c in grid) + 1
    return Sheet(name, "book.xlsx", n_rows, n_cols, grid)


def book(*sheets: Sheet) -> Workbook:
    return Workbook("book.xlsx", sheets)


def sales() -> dict[str, object]:
    """Two months of three items, a difference column D, a total row 5."""
    return {
        "A1": "Item", "B1": "Jan", "C1": "Feb", "D1": "Change",
        "A2": "a", "B2": 1, "C2": 4, "D2": "=C2-B2",
        "A3": "b", "B3": 2, "C3": 6, "D3": "=C3-B3",
        "A4": "c", "B4": 3, "C4": 9, "D4": "=C4-B4",
        "A5": "Total", "B5": "=SUM(B2:B4)", "C5": "=SUM(C2:C4)",
    }  # fmt: skip
