"""Where a target's row key stands in another table: the geometry of the relational source.

A *key cell* is a visible cell of the target's row, at most `KEY_REACH` columns to its left,
holding a key (`relational_index.key_of`). Its *key run* is the run of its column around it (the
column of the target's own table); the target's table looks rows up in another table by it. A
*lookup run* is another run holding the key cell's key (a different column, or the same column
apart from the key run, on any sheet; not a column of the target's own table); its share of the
key run's keys (`overlap`) says whether the two tables list the same things (a price list and
its order lines). A run whose table computes by formula the cell placed as the target is in its
own (`_twin`: the same summary on a sibling sheet) is a copy of the target's table, not a table
it reads, and comes after the others. The `MAX_TABLES` runs with the largest share are kept,
then widened into `Table`s: the contiguous visible columns around the matched row (at most
`MAX_WIDTH` each side), its data rows those of the run (without a header the run starts with),
and its header row's texts.

A run with a hidden cell is never used (the target's dragged block is a table no one filled
yet), and hidden cells never give keys, labels or widths: they count as empty.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from fortap.suggest.candidates.relational_index import MAX_ROWS, KeyIndex, key_at, key_of
from fortap.suggest.context import BookContext, Place, Target

KEY_REACH = 8  # key cells: this many columns left of the target
MAX_KEYS = 2  # key cells tried per target, nearest first
MAX_TABLES = 3  # lookup runs kept per key cell
MAX_WIDTH = 12  # a table's columns each side of its key column
LOOK = 30  # the column label: nearest text this many rows above the target
NUMBER_OVERLAP = 0.8  # a number key's run must share this much: small ids are everywhere


@dataclass(frozen=True)
class KeyCell:
    """A key of the target's row, and the keys of its column around it."""

    col: int
    key: tuple
    run: int | None  # its run in the `KeyIndex`
    own: frozenset  # the keys of its run (the key column of the target's table)
    head: tuple | None  # the key of its run's first cell (a header the two tables may share)


@dataclass(frozen=True)
class Table:
    """A table that holds a key cell's key in column `key_col` (0-based, sheet `sheet`)."""

    sheet: str
    key_col: int
    top: int  # first data row
    bottom: int
    left: int
    right: int
    header: dict[int, str]  # column -> its header text (case-folded), where it has one
    run: int
    shared: int  # keys of the key run also in the lookup run
    overlap: float  # shared / keys of the key run
    unique: bool  # the key cell's key stands once in the lookup run
    rows: int  # data rows
    twin: bool  # a copy of the target's table (`_twin`): ranked after the others


class Hidden:
    """The hidden cells by (sheet, column), rows sorted, to test a run in two bisections."""

    def __init__(self, hidden: frozenset[Place]) -> None:
        self.cells = hidden
        cols: dict[tuple[str, int], list[int]] = {}
        for sheet, r, c in hidden:
            cols.setdefault((sheet, c), []).append(r)
        self.cols = {k: sorted(v) for k, v in cols.items()}

    def within(self, sheet: str, col: int, top: int, bottom: int) -> bool:
        rows = self.cols.get((sheet, col))
        if not rows:
            return False
        i = bisect.bisect_left(rows, top)
        return i < len(rows) and rows[i] <= bottom


def key_cells(ctx: BookContext, ix: KeyIndex, target: Target, hidden: Hidden) -> list[KeyCell]:
    """The target row's key cells, nearest first (module doc)."""
    sc = ctx.sheets[target.sheet]
    out = []
    for c in range(target.col - 1, max(target.col - KEY_REACH, 0) - 1, -1):
        if (target.sheet, target.row, c) in hidden.cells:
            continue
        key = key_of(sc.sheet.cell(target.row, c))
        run = ix.run_at.get((target.sheet, target.row, c))
        if key is None or all(other == run for other, _ in ix.postings.get(key, ())):
            continue  # no other run holds it
        own = frozenset() if run is None else _visible_keys(ctx, ix, run, target.row, hidden)
        head = None if run is None else key_at(sc.sheet.cells, ix.runs[run][2], c)
        out.append(KeyCell(c, key, run, own or frozenset([key]), head))
        if len(out) == MAX_KEYS:
            break
    return out


def _visible_keys(ctx: BookContext, ix: KeyIndex, run: int, row: int, hidden: Hidden) -> frozenset:
    """The visible keys of `run` within `MAX_ROWS` rows around `row`."""
    sheet, col, top, bottom = ix.runs[run]
    if bottom - top < MAX_ROWS and not hidden.within(sheet, col, top, bottom):
        return frozenset(ix.keys(ctx, run))
    cells = ctx.sheets[sheet].sheet.cells
    rows = range(max(top, row - MAX_ROWS // 2), min(bottom, row + MAX_ROWS // 2) + 1)
    keys = (key_at(cells, r, col) for r in rows if (sheet, r, col) not in hidden.cells)
    return frozenset(k for k in keys if k is not None)


def tables(
    ctx: BookContext, ix: KeyIndex, kc: KeyCell, target: Target, hidden: Hidden
) -> list[Table]:
    """The `MAX_TABLES` tables whose key column shares most of the key run's keys (the target's
    sheet first among equals)."""
    matched: dict[int, int] = {}  # run -> first row holding the key
    for run, row in ix.postings.get(kc.key, ()):
        if run != kc.run and run not in matched:
            matched[run] = row
    scored = []
    for run, row in matched.items():
        sheet, col, top, bottom = ix.runs[run]
        if hidden.within(sheet, col, top, bottom):
            continue
        if sheet == target.sheet and _joined(ctx, target, col, top, bottom, hidden):
            continue  # a column of the target's own table
        keys = ix.keys(ctx, run)
        shared = sum(1 for k in kc.own if k in keys)
        need = NUMBER_OVERLAP * len(kc.own) if kc.key[0] == "n" else 0
        if shared < min(2, len(kc.own)) or shared < need:
            continue
        twin = _twin(ctx, sheet, row, col + target.col - kc.col, hidden)
        scored.append((twin, -shared / len(kc.own), -shared, sheet != target.sheet, run, row))
    scored.sort()
    out = []
    for twin, _, neg_shared, _, run, row in scored[:MAX_TABLES]:
        out.append(_widen(ctx, ix, run, row, kc, hidden, -neg_shared, twin))
    return out


def _twin(ctx: BookContext, sheet: str, row: int, col: int, hidden: Hidden) -> bool:
    """Whether the lookup table computes, by a formula, the cell placed as the target is in
    its own table (a copy of the target's table, on a sibling sheet or further down)."""
    return (
        col >= 0 and (row, col) in ctx.sheets[sheet].index and (sheet, row, col) not in hidden.cells
    )


def _joined(ctx, target: Target, col: int, top: int, bottom: int, hidden: Hidden) -> bool:
    """Whether column `col` (rows top..bottom) of the target's sheet belongs to the target's
    table: it spans the target's row and the cells between them in that row are all filled."""
    if not top <= target.row <= bottom:
        return False
    cells = ctx.sheets[target.sheet].sheet.cells
    lo, hi = sorted((col, target.col))
    for c in range(lo + 1, hi):
        cell = cells.get((target.row, c))
        if cell is None or cell.is_empty or (target.sheet, target.row, c) in hidden.cells:
            return False
    return True


def _widen(
    ctx, ix: KeyIndex, run: int, row: int, kc: KeyCell, hidden: Hidden, shared: int, twin: bool
) -> Table:
    """The lookup run `run` (matched at `row`) as a `Table` (module doc)."""
    sheet, col, top, bottom = ix.runs[run]
    cells = ctx.sheets[sheet].sheet.cells

    def filled(r: int, c: int) -> bool:
        cell = cells.get((r, c))
        return cell is not None and not cell.is_empty and (sheet, r, c) not in hidden.cells

    left = right = col
    while right - col < MAX_WIDTH and filled(row, right + 1):
        right += 1
    while col - left < MAX_WIDTH and left > 0 and filled(row, left - 1):
        left -= 1
    first = cells.get((top, col))
    head = top - 1
    titled = first is not None and first.kind == "text"
    if top < bottom and titled and (key_of(first) not in kc.own or key_of(first) == kc.head):
        head, top = top, top + 1  # the run starts with its header
    header = {}
    for c in range(left, right + 1):
        cell = cells.get((head, c)) if head >= 0 else None
        if cell is not None and cell.kind == "text" and (sheet, head, c) not in hidden.cells:
            header[c] = str(cell.value).strip().casefold()
    keys = ix.keys(ctx, run)
    return Table(sheet, col, top, bottom, left, right, header, run, shared,
                 shared / len(kc.own), keys[kc.key] == 1, bottom - top + 1, twin)  # fmt: skip


def column_label(ctx: BookContext, target: Target, hidden: Hidden) -> tuple[int, str] | None:
    """(row, case-folded text) of the nearest visible text above the target, within `LOOK`."""
    sc = ctx.sheets[target.sheet]
    for r in range(target.row - 1, max(target.row - LOOK, 0) - 1, -1):
        if (target.sheet, r, target.col) in hidden.cells:
            continue
        cell = sc.sheet.cell(r, target.col)
        if cell.kind == "text" and str(cell.value).strip():
            return r, str(cell.value).strip().casefold()
    return None


def numeric_share(
    ctx: BookContext, table: Table, col: int, hidden: Hidden, sample: int = 50
) -> float:
    """Share of numbers among the first `sample` filled visible data cells of column `col`."""
    cells = ctx.sheets[table.sheet].sheet.cells
    rows = range(table.top, min(table.bottom, table.top + sample) + 1)
    seen = [cells.get((r, col)) for r in rows if (table.sheet, r, col) not in hidden.cells]
    kinds = [cell.kind for cell in seen if cell is not None and not cell.is_empty]
    return sum(k == "number" for k in kinds) / len(kinds) if kinds else 0.0
