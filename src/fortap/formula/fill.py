"""A formula copied to another cell of its table, as Excel's fill or copy-paste moves it.

`fill_formula` takes a parsed `Formula` of table cell `src` to table cell `dst`: relative row and
column parts of each reference move by the offset, `$` parts stay (`shift_ref`). The copy is
built from the source's AST (nothing is parsed), so it is a `Formula` with the sketch, ranges
and R1C1 form of the destination. The rule baseline's fill and the sheet setting's copy targets
both use it.
"""

from __future__ import annotations

from fortap.formula.formula import Formula, formula_of_ast
from fortap.formula.nodes import map_refs
from fortap.formula.references import OffSheet, shift_ref
from fortap.table.model import Table

RC = tuple[int, int]  # a table's (row, col), 0-based from its top-left


def fill_formula(table: Table, formula: Formula | None, src: RC, dst: RC) -> Formula | None:
    """`formula` (of table cell `src`) copied to `dst`: relative parts shift, `$` parts stay;
    None when it did not parse or a shifted reference leaves the sheet."""
    if formula is None:
        return None
    dr, dc = dst[0] - src[0], dst[1] - src[1]
    try:
        moved = map_refs(formula.ast, lambda ref: shift_ref(ref, dr, dc))
    except OffSheet:
        return None
    return formula_of_ast(moved, table.sheet, sheet_rc(table, dst))


def sheet_rc(table: Table, rc: RC) -> tuple[int, int]:
    """The sheet (row, col) of table cell `rc`."""
    return table.region.top + rc[0], table.region.left + rc[1]
