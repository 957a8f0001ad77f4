"""Literal test grids: lists of values -> cells, sheets and layouts (test helper, not a test)."""

from __future__ import annotations

from fortap.sheet.model import Cell, CellStyle, Region, Sheet
from fortap.table.layout import Layout


def cell(v) -> Cell:
    """ "" -> empty, numbers -> number cells, "*x" -> bold text "x", anything else -> text."""
    if isinstance(v, Cell):
        return v
    if v == "" or v is None:
        return Cell()
    if isinstance(v, bool):
        return Cell(v, "bool")
    if isinstance(v, int | float):
        return Cell(float(v), "number")
    if v.startswith("*"):
        return Cell(v[1:], "text", style=CellStyle(bold=True))
    return Cell(v, "text")


def layout(rows, merged=()) -> Layout:
    width = max(len(r) for r in rows)
    cells = [[cell(v) for v in r] + [Cell()] * (width - len(r)) for r in rows]
    return Layout(cells, tuple(Region(*m) for m in merged))


def sheet(rows, merged=(), top=0, left=0, name="S", book="book.xlsx") -> Sheet:
    """A sheet with `rows` placed at (top, left); merged given sheet-absolute."""
    cells = {}
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            x = cell(v)
            if not x.is_empty:
                cells[(top + r, left + c)] = x
    n_rows = top + len(rows)
    n_cols = left + max(len(r) for r in rows)
    return Sheet(name, book, n_rows, n_cols, cells, tuple(Region(*m) for m in merged))
