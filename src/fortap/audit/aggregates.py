"""Short aggregates: a total whose range stops short of its numbers or reaches past them.

A formula whose outer function aggregates (`SUM`, `AVERAGE`, ...) one range of its own column,
ending at most two rows above the cell, is a column total. When the cell just above the range's
first row holds a number too (typed or computed), the block of numbers goes on past the range:
the total leaves its first rows out. When every row between the range's last row and the total
holds a number that is not a total itself, the total leaves its last rows out (`=SUM(B2:B8)`
at B10 with a number in B9: on both keys' sheets 68 of 68 such TASI totals and 56 of 68
ExceLint ones are in the key, where a gap holding text or nothing is a table's usual blank
line). When the range starts or ends with empty cells, it reaches past its numbers (`=SUM(E11:
E18)` over numbers from E12; a number typed there later would join the total unseen: TASI's
key holds 353 of the 803 totals of its sheets that do so, 44 %, against 164 of 3,014 others).
The fix extends the range up to the block's first number (the run of filled cells above,
ended by text or an empty cell) and down to the row above the total, or trims the empty cells
off its ends. Such a total is an inconsistent formula of its own kind (its `stops_short`,
`short_below` and `blank_ends` facts, weighted by `score`).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Set
from dataclasses import dataclass

from fortap.errors import FormulaError
from fortap.formula import Formula, parse_formula
from fortap.formula.nodes import Func, Ref, walk
from fortap.formula.references import ref_a1, ref_box
from fortap.sheet.model import Sheet, a1
from fortap.suggest.api import SheetContext, refs_of

AGGREGATES = frozenset({"SUM", "AVERAGE", "SUBTOTAL", "MAX", "MIN", "COUNT", "PRODUCT"})
GAP = 2  # rows allowed between a range's last cell and its total


@dataclass(frozen=True)
class Short:
    """A column total whose range stops short of its numbers (above or below it) or reaches
    past them into empty cells."""

    cell: tuple[int, int]
    text: str  # the formula as written
    left_out: int  # rows of numbers above the range
    fix: str
    box: tuple[int, int]  # the range's first and last row
    below: int = 0  # rows of numbers between the range and the total
    lead: int = 0  # empty cells at the range's top (a range reaching past its numbers)
    trail: int = 0  # empty cells at its bottom

    @property
    def empty(self) -> list[str]:
        """The A1 spans of the empty cells at the range's ends (top, then bottom)."""
        (top, bottom), col = self.box, self.cell[1]
        spans = [(top, top + self.lead - 1)] * bool(self.lead)
        spans += [(bottom - self.trail + 1, bottom)] * bool(self.trail)
        return [span_a1(a, b, col) for a, b in spans]


@dataclass(frozen=True)
class Total:
    """A formula that totals the cells of its own column (`axis` 0) or row (1), above it or
    before it (`totals(after=True)`: on either side): its range's reference and box (top, left,
    bottom, right)."""

    cell: tuple[int, int]
    axis: int
    ref: Ref
    box: tuple[int, int, int, int]


def totals(sc: SheetContext, after: bool = False) -> list[Total]:
    """Every total of the sheet (`total_range`) over its own column above it or row before it;
    with `after`, below it or after it too (a "Full year" column left of its quarters)."""
    out = []
    for cell, f in zip(sc.cells, sc.formulas, strict=True):
        got = total_range(f, sc.sheet.name)
        if got is None:
            continue
        axis = total_axis(got[1], cell, after)
        if axis is not None:
            out.append(Total(cell, axis, *got))
    return out


def total_axis(box: tuple[int, int, int, int], cell: tuple[int, int],
               after: bool = False) -> int | None:  # fmt: skip
    """0 when the box lies in the cell's column above it, 1 in its row before it, else None;
    with `after`, below it and after it count too."""
    (r, c), (top, left, bottom, right) = cell, box
    if left == right == c and (bottom < r or after and top > r):
        return 0
    if top == bottom == r and (right < c or after and left > c):
        return 1
    return None


def shorts(sc: SheetContext, labels: Set[tuple[int, int]] = frozenset()) -> list[Short]:
    """Every column total of the sheet whose range stops short (module doc); the typed years
    and codes `labels` head the block, they are not numbers it leaves out."""
    out = []
    for t in totals(sc):
        (r, c), ref, f = t.cell, t.ref, sc.formulas[sc.index[t.cell]]
        top, _, bottom, _ = t.box
        if t.axis != 0 or bottom < r - GAP - 1:
            continue
        lead = _blanks(sc.sheet, range(top, bottom + 1), c)
        if lead > bottom - top:
            continue  # nothing but empty cells: no numbers to total
        trail = _blanks(sc.sheet, range(bottom, top - 1, -1), c)
        start = top + lead
        while not lead and _filled(sc.sheet, start - 1, c, labels):
            start -= 1
        gap = range(bottom + 1, r)
        if gap and all(_item(sc, k, c, labels) for k in gap):
            end, trail = r - 1, 0  # the fix runs on down: the empty cells stay in it
        else:
            end = bottom - trail
        written = ref_a1(ref, keep_dollar=False, keep_sheet=False)
        if (start, end) == (top, bottom) or written not in f.text:
            continue  # the range is its numbers', or written otherwise (`$`): no fix by text
        fix = f.text.replace(written, span_a1(start, end, c), 1)
        out.append(Short((r, c), f.text, max(top - start, 0), fix, (top, bottom),
                         max(end - bottom, 0), lead, trail))  # fmt: skip
    return out


def total_range(f: Formula, sheet: str) -> tuple[Ref, tuple[int, int, int, int]] | None:
    """The one range a total adds up, with its box (top, left, bottom, right): the formula's
    outer function aggregates (`AGGREGATES`) a single reference on its own sheet `sheet`."""
    if not any(t.strip("[]") in AGGREGATES for t in f.sketch):
        return None  # the sketch is at hand; the AST is built on first use
    outer = next((n for n in walk(f.ast) if isinstance(n, Func)), None)
    if outer is None or outer.name.upper() not in AGGREGATES:
        return None
    refs = refs_of(f.ast)
    box = ref_box(refs[0]) if len(refs) == 1 else None
    if box is None or refs[0].sheet not in (None, sheet):
        return None
    return refs[0], box


def totalled(sc: SheetContext, typed: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The cells of `typed` that a total after them adds up: in the range of an aggregate
    (`total_range`) down their column that stands below them, or along their row to their
    right. Such a number is an input of the table's total, not a total itself."""
    down: dict[int, list[int]] = {}  # column -> rows of its typed numbers, in order
    along: dict[int, list[int]] = {}  # row -> columns of its typed numbers, in order
    for r, c in sorted(typed):
        down.setdefault(c, []).append(r)
        along.setdefault(r, []).append(c)
    out = set()
    for t in totals(sc):  # a range's typed numbers, not its cells
        (r, c), (top, left, bottom, right) = t.cell, t.box
        if t.axis == 0:
            rows = down.get(c, [])
            out |= {(i, c) for i in rows[bisect_left(rows, top) : bisect_right(rows, bottom)]}
        else:
            cols = along.get(r, [])
            out |= {(r, j) for j in cols[bisect_left(cols, left) : bisect_right(cols, right)]}
    return out


def adds_up_to(text: str, sheet: str, cell: tuple[int, int]) -> bool:
    """Whether the formula `text`, written at `cell` of `sheet`, is a total of the numbers
    above it in its column or before it in its row (False when it does not parse)."""
    try:
        got = total_range(parse_formula(text, sheet, cell), sheet)
    except FormulaError:
        return False
    return got is not None and total_axis(got[1], cell) is not None


def _item(sc: SheetContext, row: int, col: int, labels: Set[tuple[int, int]]) -> bool:
    """A number there that is no total itself (a total under a total adds the same rows)."""
    k = sc.index.get((row, col))
    own = k is not None and total_range(sc.formulas[k], sc.sheet.name) is not None
    return not own and _filled(sc.sheet, row, col, labels)


def span_a1(first: int, last: int, col: int) -> str:
    """`B3:B7` for rows 2..6 of column 1; one cell alone, `B3`."""
    return a1(first, col) if first == last else f"{a1(first, col)}:{a1(last, col)}"


def _blanks(sheet: Sheet, rows: range, col: int) -> int:
    """How many of `rows` (in their order) are empty cells before the first that is not."""
    n = 0
    for row in rows:
        cell = sheet.cell(row, col)
        if cell.formula is not None or cell.value not in (None, ""):
            break
        n += 1
    return n


def _filled(sheet: Sheet, row: int, col: int, labels: Set[tuple[int, int]]) -> bool:
    """A number there, typed or computed (booleans, text and `labels` are not)."""
    if row < 0 or (row, col) in labels:
        return False
    cell = sheet.cell(row, col)
    return (
        cell.kind == "number"
        and not isinstance(cell.value, bool)
        or (cell.formula is not None and cell.kind in ("number", "empty"))
    )
