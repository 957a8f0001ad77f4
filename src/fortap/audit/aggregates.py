"""Short aggregates: a total whose range stops short of the numbers above it.

A formula whose outer function aggregates (`SUM`, `AVERAGE`, ...) one range of its own column,
ending at most two rows above the cell, is a column total. When the cell just above the range's
first row holds a number too (typed or computed), the block of numbers goes on past the range:
the total leaves its first rows out. The fix extends the range up to the block's first number
(the run of filled cells above, ended by text or an empty cell). Such a total is an
inconsistent formula of its own kind (its `stops_short` fact, weighted by `score`).
"""

from __future__ import annotations

from dataclasses import dataclass

from fortap.formula.nodes import Func, walk
from fortap.formula.references import ref_a1, ref_box
from fortap.sheet.model import Sheet, a1
from fortap.suggest.api import SheetContext, refs_of

AGGREGATES = frozenset({"SUM", "AVERAGE", "SUBTOTAL", "MAX", "MIN", "COUNT", "PRODUCT"})
GAP = 2  # rows allowed between a range's last cell and its total


@dataclass(frozen=True)
class Short:
    """A column total whose range stops short of the numbers above it."""

    cell: tuple[int, int]
    text: str  # the formula as written
    left_out: int  # rows of numbers above the range
    fix: str


def shorts(sc: SheetContext) -> list[Short]:
    """Every column total of the sheet whose range stops short (module doc)."""
    out = []
    for (r, c), f in zip(sc.cells, sc.formulas, strict=True):
        if not any(t.strip("[]") in AGGREGATES for t in f.sketch):
            continue  # the sketch is at hand; the AST is built on first use
        outer = next((n for n in walk(f.ast) if isinstance(n, Func)), None)
        if outer is None or outer.name.upper() not in AGGREGATES:
            continue
        refs = refs_of(f.ast)
        box = ref_box(refs[0]) if len(refs) == 1 else None
        if box is None or refs[0].sheet not in (None, sc.sheet.name):
            continue
        top, left, bottom, right = box
        if not (left == right == c and r - GAP - 1 <= bottom < r) or not _filled(
            sc.sheet, top - 1, c
        ):
            continue
        start = top - 1
        while _filled(sc.sheet, start - 1, c):
            start -= 1
        written = ref_a1(refs[0], keep_dollar=False, keep_sheet=False)
        if written not in f.text:  # written with `$` or a sheet name: no fix by text
            continue
        fix = f.text.replace(written, f"{a1(start, c)}:{a1(bottom, c)}", 1)
        out.append(Short((r, c), f.text, top - start, fix))
    return out


def _filled(sheet: Sheet, row: int, col: int) -> bool:
    """A number there, typed or computed (booleans and text are not)."""
    if row < 0:
        return False
    cell = sheet.cell(row, col)
    return (
        cell.kind == "number"
        and not isinstance(cell.value, bool)
        or (cell.formula is not None and cell.kind in ("number", "empty"))
    )
