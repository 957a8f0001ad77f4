"""Inconsistent formulas: a formula whose R1C1 breaks the block of formulas around it.

In a formula run (`structure.runs`, at least `MIN_RUN` cells) a cell's *block* is the R1C1 text
its two neighbours along the run share when they do (a stretch of one dragged formula that the
cell interrupts), else the run's most frequent text. A cell is flagged when its own R1C1 is
rarer in the run than its block's, yet its sketch (operators and functions, references as
slots) is the block's: the same computation with references that moved differently, such as
`=E9*C8` among `=E·*C·` of the own row, a reference shifted by one, or a range stopping short of
its neighbours'. A cell whose sketch differs is flagged when its references are the block's
less one that reads a number (`=D9` among `=C·+D·`: a term left out; on the two keys' sheets
16 of 24 such TASI cells and 19 of 24 ExceLint ones are in the key, against 1 of 32 with one
term more; a running balance's first cell, `=B2` over `=C2+B3`, would read a header: no term
is left out). A cell whose ranges cover more cells of its run than its block's formula would
aggregates the block (a total under its column) and is not compared with it. A cell inside
a dragged stretch (both neighbours hold the block's formula) whose references are all the
block's but one other part differs (`differences.compare`: a function or operator, a
constant, or only its `$`s) breaks it too (`Break.differs`). The fix is the block's formula
re-anchored to the cell (`suggest.api.reanchor`) from its nearest member.

How much the cell breaks its block is measured as well (ExceLint scores a cell by how much
fixing it would make its region uniform): whether each of its references that differ from the
fix's moved by one row or one column (`by_one`: the slip of a formula typed or dragged one cell
off; a cell whose references differ only in `$` is not one).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from fortap.audit.differences import ANCHORING, CONSTANT, REFERENCE, Part, compare
from fortap.audit.structure import AXES, AXIS_NAMES, Run, dominant, nearest, runs
from fortap.formula import Formula
from fortap.formula.references import ref_box, ref_r1c1
from fortap.sheet.model import a1
from fortap.suggest.api import SheetContext, reanchor, refs_of

MIN_RUN = 3  # a block of two cannot say which of its formulas is the odd one


@dataclass(frozen=True)
class Break:
    """A formula cell that breaks its run's block, as measured (before scoring)."""

    cell: tuple[int, int]
    run: Run
    formula: Formula  # the cell's own
    model: Formula  # the block's formula at its nearest member
    share: float  # the block's cells / the run's cells
    interior: bool  # both neighbours along the run hold the block's formula
    odd: int  # cells of the run sharing the cell's own R1C1 (itself included)
    fix: str  # the block's formula re-anchored to the cell
    detail: str  # how the references differ, in words
    by_one: bool  # some reference differs from the fix's, and each that does moved by one
    dropped: bool = False  # another sketch: the block's references less one (a term left out)
    # what differs, when not the references (`differences`): FUNCTION, CONSTANT,
    # OTHER_CONSTANT or ANCHORING, with the parts of that kind; "" for the references
    differs: str = ""
    parts: tuple[Part, ...] = ()
    block_cells: int = 0  # cells of the run holding the block's formula


def breaks(sc: SheetContext) -> list[Break]:
    """Every formula cell of the sheet that breaks a block along a column or a row."""
    out = []
    for axis in AXES:
        for run in runs(set(sc.cells), axis):
            if len(run.cells) < MIN_RUN:
                continue
            texts = [sc.r1c1s[sc.group[sc.index[c]]] for c in run.cells]
            top = dominant(texts)
            if top is not None and top[1] == len(texts):
                continue  # one formula all along
            count, where = Counter(texts), {}
            for i, text in enumerate(texts):
                where.setdefault(text, []).append(i)
            for at in range(len(run.cells)):
                block = _block(texts, at, top)
                if block is not None and count[texts[at]] < count[block]:
                    found = _break(sc, at, run, texts, block, count, where[block])
                    if found is not None:
                        out.append(found)
    return out


def _block(texts: list[str], at: int, top: tuple[str, int] | None) -> str | None:
    """The R1C1 of the block cell `at` breaks (module doc); None when it breaks none."""
    own = texts[at]
    if 0 < at < len(texts) - 1 and texts[at - 1] == texts[at + 1] != own:
        return texts[at - 1]
    if top is not None and top[1] >= 2 and top[0] != own:
        return top[0]
    return None


def _break(sc: SheetContext, at: int, run: Run, texts: list[str], block: str,
           count: Counter, members: list[int]) -> Break | None:  # fmt: skip
    cell = run.cells[at]
    formula = sc.formulas[sc.index[cell]]
    model = sc.formulas[sc.index[run.cells[nearest(members, at)]]]
    copy = reanchor(model, cell)
    if copy is None:
        return None
    sides = [i for i in (at - 1, at + 1) if 0 <= i < len(texts)]
    interior = len(sides) == 2 and all(texts[i] == block for i in sides)
    # another part than a reference only inside a dragged stretch: a run of two stretches (`+`
    # down to row 6, `-` below) holds two computations, no slip
    differs, parts = _other_part(formula, model, copy.refs) if interior else ("", ())
    if differs:
        return Break(cell, run, formula, model, count[block] / len(texts), interior,
                     count[texts[at]], "=" + copy.text.lstrip("="), _said(parts), False,
                     differs=differs, parts=parts, block_cells=count[block])  # fmt: skip
    dropped = model.sketch != formula.sketch
    if dropped and not _left_out(formula, model):
        return None
    if _aggregates(formula, copy.refs, run, cell):
        return None
    own, expected = [ref_box(r) for r in refs_of(formula.ast)], [ref_box(r) for r in copy.refs]
    if dropped:
        gone = [b for b in expected if b not in own]  # boxes all (`_left_out`): one, or none
        if gone and not _numbers_in(sc, gone[0]):
            return None  # the term would read a header or an empty cell (a running balance's
            # first cell, `=B2` over `=C2+B3`, ...): nothing is left out
        detail = f"a term left out ({_box(gone[0])} of the block's formula)" if gone else ""
        by_one = False
    else:
        pairs = _differing(own, expected)
        detail = _detail(pairs)
        by_one = bool(pairs) and all(_one_off(got, want) for got, want in pairs or ())
    return Break(cell, run, formula, model, count[block] / len(texts), interior,
                 count[texts[at]], "=" + copy.text.lstrip("="), detail or "its references are "
                 "the block's less one", by_one, dropped, block_cells=count[block])  # fmt: skip


def _other_part(formula: Formula, model: Formula, moved) -> tuple[str, tuple[Part, ...]]:
    """What differs when it is not the references (`differences.compare`): one function,
    operator or constant with every reference the block's, or only `$`s; ("", ()) else."""
    parts = compare(formula.ast, model.ast, moved)
    if not parts or any(p.kind == REFERENCE for p in parts):
        return "", ()
    other = [p for p in parts if p.kind != ANCHORING]
    if not other:
        return ANCHORING, tuple(parts)
    # one part only: two (`=A3*2` among `=A·+1`) make another computation, not a slip
    return (other[0].kind, (other[0],)) if len(parts) == 1 else ("", ())


def _said(parts: tuple[Part, ...]) -> str:
    """The parts in words, for `describe`: `AVERAGE where its block uses SUM`."""
    p = parts[0]
    if p.kind == ANCHORING:
        own, theirs = ", ".join(q.own for q in parts), ", ".join(q.block for q in parts)
        return f"{own} where its block reads {theirs}: the same value here, another once filled"
    if p.kind == CONSTANT:
        return f"the constant {p.own} where its block reads {p.block}"
    return f"{p.own} where its block uses {p.block}"


def _left_out(formula: Formula, model: Formula) -> bool:
    """Whether the cell's `formula` has references (one at least), all of them the block's
    formula `model`'s, and lacks exactly one of those (compared as R1C1 texts); references
    that name no cells (a defined name) make it no such case."""
    if formula.cell is None or model.cell is None:
        return False
    refs, theirs_refs = refs_of(formula.ast), refs_of(model.ast)
    if any(ref_box(r) is None for r in (*refs, *theirs_refs)):
        return False
    own = Counter(ref_r1c1(r, formula.cell) for r in refs)
    theirs = Counter(ref_r1c1(r, model.cell) for r in theirs_refs)
    return bool(own) and not own - theirs and sum((theirs - own).values()) == 1


def _numbers_in(sc: SheetContext, box: tuple[int, int, int, int]) -> bool:
    """Whether a cell of the box (its first 64) holds a formula or a typed number."""
    top, left, bottom, right = box
    cells = ((r, c) for r in range(top, bottom + 1) for c in range(left, right + 1))
    for _, (r, c) in zip(range(64), cells, strict=False):
        if (r, c) in sc.index or sc.sheet.cell(r, c).kind == "number":
            return True
    return False


def _aggregates(formula: Formula, copy_refs, run: Run, cell) -> bool:
    """Whether the formula's references cover more other cells of its run than the block's
    formula at the cell does (`copy_refs`): it aggregates them, as a total does. A reference to
    the cell above in a block of `=R[-1]C+1`, or one shifted onto the run, covers no more."""
    own = _covered(refs_of(formula.ast), formula.host_sheet, run)
    return len(own - _covered(copy_refs, formula.host_sheet, run) - {cell[run.axis]}) >= 2


def _covered(refs, sheet: str | None, run: Run) -> set[int]:
    """The places along the run (rows of a column run, columns of a row run) inside one of the
    references `refs` on the sheet `sheet`: the box and the run intersected, not searched."""
    axis = run.axis
    fixed, first, last = run.cells[0][1 - axis], run.cells[0][axis], run.cells[-1][axis]
    out: set[int] = set()
    for ref in refs:
        box = ref_box(ref)
        if box is None or (ref.sheet is not None and ref.sheet != sheet):
            continue
        if box[1 - axis] <= fixed <= box[3 - axis]:
            out.update(range(max(box[axis], first), min(box[2 + axis], last) + 1))
    return out


def _differing(own: list, expected: list) -> list[tuple] | None:
    """The (own, expected) boxes of the references that differ; None when the references do
    not pair up (another count, or one the boxes cannot place)."""
    if len(own) != len(expected) or any(b is None for b in own + expected):
        return None
    return [(got, want) for got, want in zip(own, expected, strict=True) if got != want]


def _one_off(got: tuple, want: tuple) -> bool:
    """`got` is `want` moved by one row or one column, or with one edge moved by one."""
    d = [g - w for g, w in zip(got, want, strict=True)]
    moved = d[0] == d[2] and d[1] == d[3] and abs(d[0]) + abs(d[1]) == 1
    return moved or sum(map(abs, d)) == 1


def _detail(pairs: list[tuple] | None) -> str:
    """How the cell's references differ from the re-anchored block formula's, in words."""
    for got, want in pairs or ():
        single = got[0] == got[2] and got[1] == got[3] and want[0] == want[2] and want[1] == want[3]
        if single and abs(got[0] - want[0]) + abs(got[1] - want[1]) == 1:
            return f"a reference shifted by one ({a1(got[0], got[1])} for {a1(want[0], want[1])})"
        if _inside(got, want):
            return f"a range stopping short of its neighbours' ({_box(got)} for {_box(want)})"
        if _inside(want, got):
            return f"a range reaching past its neighbours' ({_box(got)} for {_box(want)})"
        return f"{_box(got)} where its neighbours read {_box(want)}"
    return "its references are not the block's"


def _inside(a, b) -> bool:
    return b[0] <= a[0] and b[1] <= a[1] and a[2] <= b[2] and a[3] <= b[3]


def _box(box) -> str:
    start, end = a1(box[0], box[1]), a1(box[2], box[3])
    return start if start == end else f"{start}:{end}"


def describe(found: Break) -> str:
    """`=E9*C8 breaks the column block F3:F20 (12 of 14 cells hold =E8*C8 at F8, ...)`."""
    where = a1(*found.model.cell) if found.model.cell else "?"
    n = round(found.share * len(found.run.cells))
    return (
        f"{found.formula.text} breaks the {AXIS_NAMES[found.run.axis]} block {found.run.span()} "
        f"({n} of {len(found.run.cells)} cells hold its formula, {found.model.text} at {where}): "
        f"{found.detail}"
    )
