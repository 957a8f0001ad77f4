"""Augmentations that move a table's cells: empty lines inserted, the table transposed.

Both keep the target formula exactly right (see `augment` for `Target` and the surface
changes): the formula's references move with the cells they point at.

- `insert_blank`: one or two empty rows and/or columns inserted inside the table, between its
  first and last row (column) and not inside the headers; the formula's references move as
  the spreadsheet's Insert moves them (`references.insert_shift`: a range that spans the new
  line grows), the header trees and merged regions follow;
- `transpose`: rows become columns; the references are mirrored on the table's diagonal
  (`references.transpose_ref`), the top and left header trees and header counts swap.

They apply only where the formula's value cannot depend on where its cells are (`movable`):
every reference has cells on the table's own sheet (no whole rows or columns, names or other
sheets), and no function reads positions or shapes or counts blanks (`OFFSET`, `INDEX`,
lookups, `ROW`, `COUNTBLANK`, `COUNTIF`, ... see `POSITIONAL`); the aggregates that skip
empty cells (`SUM`, `AVERAGE`, `MIN`, `MAX`, `COUNT`, ...) are kept. Formula cells other than
the target are shown as their values in the paper setting, so only the target's formula text
is rewritten.
"""

from __future__ import annotations

import random
from dataclasses import replace

from fortap.encoding.piece import RC
from fortap.formula import Formula
from fortap.formula.fill import sheet_rc
from fortap.formula.formula import formula_of_ast
from fortap.formula.nodes import Func, Op, Ref, map_refs, walk
from fortap.formula.references import OffSheet, insert_shift, transpose_ref
from fortap.sheet.model import EMPTY, Region
from fortap.table.model import HeaderNode, Table
from fortap.tasks.formula_prediction.augment import Target

# functions whose value depends on where cells are, on a range's shape, or on empty cells
POSITIONAL = frozenset(
    (
        "OFFSET", "INDEX", "MATCH", "XMATCH", "VLOOKUP", "HLOOKUP", "LOOKUP", "XLOOKUP",
        "ROW", "ROWS", "COLUMN", "COLUMNS", "INDIRECT", "ADDRESS", "CELL", "AREAS",
        "COUNTBLANK", "COUNTIF", "COUNTIFS", "MMULT", "TRANSPOSE", "MDETERM", "MINVERSE",
        "LINEST", "LOGEST", "TREND", "GROWTH", "FORECAST", "SLOPE", "INTERCEPT", "CORREL",
        "PEARSON", "RSQ", "STEYX", "COVAR", "FREQUENCY", "CHOOSE", "SORT", "SORTBY",
        "FILTER", "UNIQUE", "SEQUENCE", "TAKE", "DROP", "HSTACK", "VSTACK", "TOROW",
        "TOCOL", "WRAPROWS", "WRAPCOLS", "EXPAND", "CHOOSEROWS", "CHOOSECOLS",
        "GETPIVOTDATA", "TEXTJOIN",
    )
)  # fmt: skip
MAX_INSERTED = 2  # empty rows (and columns) one `insert_blank` adds at most


def movable(target: Target) -> bool:
    """True when the formula's value does not depend on where its cells sit (module doc)."""
    table = target.table
    for node in walk(target.formula.ast):
        if isinstance(node, Func) and node.name in POSITIONAL:
            return False
        if isinstance(node, Op) and node.op == "#":  # a spill reference: its shape matters
            return False
        if isinstance(node, Ref):
            if node.start is None or node.sheet not in (None, table.sheet):
                return False
            ends = (node.start, node.end) if node.end is not None else (node.start,)
            if any(a.row is None or a.col is None for a in ends):
                return False
    return True


def _with_formula(table: Table, rc: RC, formula: Formula) -> Table:
    """`table` with the target cell's formula text set to `formula`'s."""
    rows = list(table.cells)
    row = list(rows[rc[0]])
    row[rc[1]] = replace(row[rc[1]], formula=formula.text)
    rows[rc[0]] = tuple(row)
    return replace(table, cells=tuple(rows))


def _moved(target: Target, table: Table, rc: RC, move) -> Target | None:
    """The target on the moved `table` at `rc`, its formula's references moved by `move`."""
    try:
        ast = map_refs(target.formula.ast, move)
    except OffSheet:
        return None
    f = target.formula
    formula = formula_of_ast(ast, table.sheet, sheet_rc(table, rc), f.array)
    if formula.sketch != f.sketch:  # moving references never changes the sketch
        return None
    return Target(_with_formula(table, rc, formula), rc, formula)


# --- empty rows and columns --------------------------------------------------------------------


def _shift_node(node: HeaderNode, axis: str, at: int, n: int) -> HeaderNode:
    row = node.row + n if axis == "row" and node.row >= at else node.row
    col = node.col + n if axis == "col" and node.col >= at else node.col
    return HeaderNode(row, col, tuple(_shift_node(ch, axis, at, n) for ch in node.children))


def _grow(reg: Region, axis: str, at: int, n: int) -> Region:
    """A table-relative region after `n` lines inserted before line `at`: moved when it starts
    at or after `at`, grown when it spans it."""
    if axis == "row":
        top = reg.top + n if reg.top >= at else reg.top
        bottom = reg.bottom + n if reg.bottom >= at else reg.bottom
        return Region(top, reg.left, bottom, reg.right)
    left = reg.left + n if reg.left >= at else reg.left
    right = reg.right + n if reg.right >= at else reg.right
    return Region(reg.top, left, reg.bottom, right)


def insert_lines(target: Target, axis: str, at: int, n: int = 1) -> Target | None:
    """`n` empty rows (`axis` "row") or columns inserted before table line `at`."""
    table, (r, c) = target.table, target.rc
    reg = table.region
    if axis == "row":
        cells = (*table.cells[:at], *((EMPTY,) * table.n_cols,) * n, *table.cells[at:])
        region, rc = Region(reg.top, reg.left, reg.bottom + n, reg.right), (r + (r >= at) * n, c)
        sheet_at = reg.top + at
    else:
        pad = (EMPTY,) * n
        cells = tuple((*row[:at], *pad, *row[at:]) for row in table.cells)
        region, rc = Region(reg.top, reg.left, reg.bottom, reg.right + n), (r, c + (c >= at) * n)
        sheet_at = reg.left + at
    moved = replace(
        table, region=region, cells=cells,
        merged=tuple(_grow(m, axis, at, n) for m in table.merged),
        top_root=_shift_node(table.top_root, axis, at, n),
        left_root=_shift_node(table.left_root, axis, at, n),
    )  # fmt: skip
    return _moved(target, moved, rc, lambda ref: insert_shift(ref, sheet_at, n, axis))


def insert_blank(target: Target, rng: random.Random) -> Target | None:
    """One or two empty rows and/or columns (at least one line) inside the table."""
    if not movable(target):
        return None
    table = target.table
    spots = {  # where a line may go: after the first line and the headers, before the last
        "row": range(max(1, table.top_header_rows), table.n_rows),
        "col": range(max(1, table.left_header_cols), table.n_cols),
    }
    counts = {axis: rng.randint(0, MAX_INSERTED) if spots[axis] else 0 for axis in spots}
    if not any(counts.values()):
        axes = [axis for axis in spots if spots[axis]]
        if not axes:
            return None
        counts[rng.choice(axes)] = 1
    out: Target | None = target
    for axis, count in counts.items():
        for _ in range(count):
            assert out is not None
            last = out.table.n_rows if axis == "row" else out.table.n_cols
            out = insert_lines(out, axis, rng.randrange(spots[axis].start, last))
            if out is None:
                return None
    return out


# --- transposition -----------------------------------------------------------------------------


def _flip_node(node: HeaderNode) -> HeaderNode:
    return HeaderNode(node.col, node.row, tuple(_flip_node(ch) for ch in node.children))


def transpose(target: Target, rng: random.Random | None = None) -> Target | None:
    """The table with rows and columns swapped, its corner staying where it is."""
    if not movable(target):
        return None
    table, (r, c) = target.table, target.rc
    reg = table.region
    flipped = replace(
        table,
        region=Region(reg.top, reg.left, reg.top + table.n_cols - 1, reg.left + table.n_rows - 1),
        cells=tuple(zip(*table.cells, strict=True)),
        merged=tuple(Region(m.left, m.top, m.right, m.bottom) for m in table.merged),
        top_header_rows=table.left_header_cols,
        left_header_cols=table.top_header_rows,
        top_root=_flip_node(table.left_root),
        left_root=_flip_node(table.top_root),
    )
    return _moved(target, flipped, (c, r), lambda ref: transpose_ref(ref, reg.top, reg.left))
