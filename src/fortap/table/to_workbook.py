"""A `Table` written back as a sheet (`table_workbook`, `write_table`): the table-to-workbook
writer.

Each cell goes to the A1 position its table's references name (`region` offset added, so a
HiTab table's grid lands at A1 with its texts row 0 as row 1, where `answer_formula` points):
numbers as numbers exactly where fortap's reader made them numbers (`Cell.kind == "number"`,
e.g. `table.hitab.parse_cell`), texts as strings, booleans as booleans, dates as datetimes,
errors as their error text. A formula cell is written as its cached value: the sheet is a
surface to compute on, not a copy of the workbook's formulas. Merged regions are merged where
they lie inside the grid.
"""

from __future__ import annotations

import datetime as dt

import openpyxl
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.worksheet.worksheet import Worksheet

from fortap.sheet.model import Cell
from fortap.table.model import Table


def table_workbook(table: Table, title: str = "table") -> openpyxl.Workbook:
    """A new one-sheet workbook holding `table` (see module doc) on the sheet `title`."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    write_table(table, sheet)
    return book


def write_table(table: Table, sheet: Worksheet) -> None:
    """Write `table`'s cells and merged regions into `sheet` at the table's own positions."""
    top, left = table.region.top, table.region.left
    for r, row in enumerate(table.cells):
        for c, cell in enumerate(row):
            if cell.value is None:
                continue
            target = sheet.cell(row=top + r + 1, column=left + c + 1)
            target.value = _value(cell)
            if cell.kind == "text":
                # openpyxl reads a string starting with "=" as a formula; text stays text
                target.data_type = "s"
    for m in table.merged:
        bottom, right = min(m.bottom, table.n_rows - 1), min(m.right, table.n_cols - 1)
        covered = [(r, c) for r in range(m.top, bottom + 1) for c in range(m.left, right + 1)]
        # openpyxl empties every merged cell but the top-left one; a value there is kept unmerged
        if len(covered) > 1 and not any(table.cell(*rc).value is not None for rc in covered[1:]):
            sheet.merge_cells(start_row=top + m.top + 1, start_column=left + m.left + 1,
                              end_row=top + bottom + 1, end_column=left + right + 1)  # fmt: skip


def _value(cell: Cell):
    if cell.kind == "number" and isinstance(cell.value, int | float):
        return float(cell.value)
    if cell.kind == "bool":
        return bool(cell.value)
    if cell.kind == "date" and isinstance(cell.value, str):
        try:
            return dt.datetime.fromisoformat(cell.value)
        except ValueError:
            return cell.value
    if isinstance(cell.value, str):
        # control characters cannot be stored in .xlsx XML; openpyxl refuses them
        return ILLEGAL_CHARACTERS_RE.sub("", cell.value)
    return cell.value
