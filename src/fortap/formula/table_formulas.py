"""Every formula cell of a table parsed once: `parse_table_formulas(table) -> TableFormulas`.

A formula is parsed where it lives on its sheet (host sheet, sheet cell, array flag), through the
one entry point `fortap.formula.parse_formula`. The corpus (`fortap.corpus.facts`), the
serialisation of formula cells shown as tokens (`fortap.encoding.formula_input`) and the
targets built from them all read these `Formula` values; nothing downstream parses formula text
again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from fortap.errors import FortapError
from fortap.formula.formula import Formula, parse_formula
from fortap.table.model import Table

RC = tuple[int, int]  # table-relative (row, col)


@dataclass(frozen=True)
class TableFormulas:
    """The parsed formulas of one table by table cell, and the cells whose formula does not
    parse (with the error's message)."""

    parsed: Mapping[RC, Formula]
    unparsable: Mapping[RC, str]

    def get(self, rc: RC) -> Formula | None:
        return self.parsed.get(rc)

    def __contains__(self, rc: object) -> bool:
        return rc in self.parsed or rc in self.unparsable

    def cells(self) -> Iterator[RC]:
        """Every formula cell, row-major."""
        return iter(sorted([*self.parsed, *self.unparsable]))


def parse_table_cell(table: Table, rc: RC) -> Formula:
    """The formula of table cell `rc` parsed where it lives on its sheet (`FormulaError` if bad)."""
    cell = table.cell(*rc)
    assert cell.formula is not None, rc
    sheet_cell = (table.region.top + rc[0], table.region.left + rc[1])
    return parse_formula(cell.formula, table.sheet, sheet_cell, cell.array_formula)


def parse_table_formulas(table: Table) -> TableFormulas:
    """Every formula cell of `table` parsed once (see module doc)."""
    parsed: dict[RC, Formula] = {}
    unparsable: dict[RC, str] = {}
    for r, row in enumerate(table.cells):
        for c, cell in enumerate(row):
            if cell.formula is None:
                continue
            try:
                parsed[r, c] = parse_table_cell(table, (r, c))
            except FortapError as err:
                unparsable[r, c] = str(err)
    return TableFormulas(parsed, unparsable)
