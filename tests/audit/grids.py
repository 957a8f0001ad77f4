"""Literal sheets for the structural detectors: a grid of rows, each cell a number, a text,
a formula ("=..."), a formula with the value it shows (("=A4+1", 1993)) or None (empty),
turned into a `SheetContext`."""

from __future__ import annotations

from fortap.sheet.model import Cell, Sheet, Workbook
from fortap.suggest.context import BookContext, SheetContext


def sheet_context(rows: list[list], name: str = "S") -> SheetContext:
    cells = {}
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            if v is None:
                continue
            if isinstance(v, tuple):
                cells[(r, c)] = Cell(float(v[1]), "number", v[0])
            elif isinstance(v, str) and v.startswith("="):
                cells[(r, c)] = Cell(0.0, "number", v)
            elif isinstance(v, str):
                cells[(r, c)] = Cell(v, "text")
            else:
                cells[(r, c)] = Cell(float(v), "number")
    sheet = Sheet(name, "grid.xlsx", len(rows), max(map(len, rows)), cells)
    return BookContext.from_workbook(Workbook("grid.xlsx", (sheet,))).sheets[name]
