"""Every formula cell of a table parsed once: `parse_table_formulas(table) -> TableFormulas`.

A formula is parsed where it lives on its sheet (host sheet, sheet cell, array flag), through the
one entry point `fortap.formula.parse_formula`. The corpus (`fortap.corpus.facts`), the
serialisation of formula cells shown as tokens (`fortap.encoding.formula_input`) and the
targets built from them all read these `Formula` values; nothing downstream parses formula text
again.
"""

from __future__ import annotations

from collections.abc import Mapping

from fortap.errors import FortapError
from fortap.formula.formula import Formula, parse_formula
from fortap.table.model import Table

RC = tuple[int, int]  # table-relative (row, col)


# every formula cell of a table, row-major -> its `Formula`, or None when the text does not parse
TableFormulas = Mapping[RC, Formula | None]


def parse_table_cell(table: Table, rc: RC) -> Formula:
    """The formula of table cell `rc` parsed where it lives on its sheet (`FormulaError` if bad)."""
    cell = table.cell(*rc)
    assert cell.formula is not None, rc
    sheet_cell = (table.region.top + rc[0], table.region.left + rc[1])
    return parse_formula(cell.formula, table.sheet, sheet_cell, cell.array_formula)


def parse_table_formulas(table: Table) -> dict[RC, Formula | None]:
    """Every formula cell of `table` parsed once, row-major; None where the text does not
    parse (see module doc)."""
    out: dict[RC, Formula | None] = {}
    for r, row in enumerate(table.cells):
        for c, cell in enumerate(row):
            if cell.formula is None:
                continue
            try:
                out[r, c] = parse_table_cell(table, (r, c))
            except FortapError:
                out[r, c] = None
    return out
