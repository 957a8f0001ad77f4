"""A sheet as the Excel add-in sends it -> an .xlsx the engine opens like an upload.

The task pane reads the active sheet's used range through Office.js (`range.values`,
`range.formulas`, `range.numberFormat`: row-major lists of the same shape, and the range's
address) and sends them once per content hash (`addin_routes`). Here they become a one-sheet
workbook written with openpyxl, cell for cell at its place in the sheet, so every other route
(suggest, findings, types, ask) works on it unchanged. A formula cell keeps its formula only:
the preview engine recomputes its value.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import openpyxl

from fortap.errors import FortapError
from fortap.service.grid import parse_cell_a1

MAX_ADDIN_CELLS = 200_000  # a used range past this is refused with one line (the CLI is the tool)
ADDRESS = re.compile(r"^(?:.*!)?\$?([A-Za-z]{1,3})\$?(\d{1,7})(?::\$?[A-Za-z]{1,3}\$?\d{1,7})?$")


class BadSheetGrid(FortapError):
    """Values, formulas and formats that do not form one rectangle, or too many cells."""


def top_left(address: str, sheet: str) -> tuple[int, int]:
    """`Budget!A1:F7` -> (0, 0): the 0-based top-left cell of Office.js's range address."""
    match = ADDRESS.match(address.replace("'", ""))
    if match is None:
        raise BadSheetGrid(f"sheet {sheet!r}: {address[:60]!r} is not a range address like A1:F7")
    return parse_cell_a1(match.group(1) + match.group(2), sheet)


def write_grid(path: Path, sheet: str, address: str, values: list[list[Any]],
               formulas: list[list[Any]], formats: list[list[Any]]) -> int:  # fmt: skip
    """Write the sent range as a one-sheet .xlsx at `path`; returns the cells written."""
    shape = (len(values), len(values[0]) if values else 0)
    for name, grid in (("formulas", formulas), ("formats", formats)):
        if len(grid) != shape[0] or any(len(row) != shape[1] for row in grid):
            raise BadSheetGrid(f"sheet {sheet!r}: {name} is not the shape of values {shape}")
    if any(len(row) != shape[1] for row in values):
        raise BadSheetGrid(f"sheet {sheet!r}: the rows of values differ in length")
    if shape[0] * shape[1] > MAX_ADDIN_CELLS:
        raise BadSheetGrid(f"sheet {sheet!r}: {shape[0]}x{shape[1]} cells is over the add-in's "
                           f"{MAX_ADDIN_CELLS:,}; fortap suggest BOOK CELL reads it whole")  # fmt: skip
    row0, col0 = top_left(address, sheet)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    written = 0
    for r, (vals, forms, fmts) in enumerate(zip(values, formulas, formats, strict=True)):
        for c, (value, formula, fmt) in enumerate(zip(vals, forms, fmts, strict=True)):
            content = formula if isinstance(formula, str) and formula.startswith("=") else value
            if content is None or content == "":
                continue
            cell = ws.cell(row=row0 + r + 1, column=col0 + c + 1)
            cell.value = content if isinstance(content, int | float | bool | str) else str(content)
            if isinstance(fmt, str) and fmt and fmt != "General":
                cell.number_format = fmt
            written += 1
    wb.save(path)
    return written
