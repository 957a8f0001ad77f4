"""Inconsistent formulas: a formula whose R1C1 breaks the block of formulas around it.

In a formula run (`structure.runs`, at least `MIN_RUN` cells) the most frequent R1C1 text is the
block's formula. A cell is flagged when its own R1C1 is rarer, yet its sketch (operators and
functions, references as slots) is the block's: the same computation with references that moved
differently, such as `=E9*C8` among `=E·*C·` of the own row, a reference shifted by one, or a
range stopping short of its neighbours'. A cell whose references cover other cells of its run
aggregates the block (a total under its column) and is not compared with it. The fix is the
block's formula re-anchored to the cell (`suggest.api.reanchor`) from its nearest member.
"""

from __future__ import annotations

from dataclasses import dataclass

from fortap.audit.structure import AXES, AXIS_NAMES, Run, dominant, runs
from fortap.formula import Formula
from fortap.formula.references import ref_box
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


def breaks(sc: SheetContext) -> list[Break]:
    """Every formula cell of the sheet that breaks a block along a column or a row."""
    out = []
    for axis in AXES:
        for run in runs(set(sc.cells), axis):
            if len(run.cells) < MIN_RUN:
                continue
            texts = [sc.r1c1s[sc.group[sc.index[c]]] for c in run.cells]
            top = dominant(texts)
            if top is None or top[1] < 2 or top[1] == len(texts):
                continue
            for at in range(len(run.cells)):
                if texts[at] != top[0]:
                    found = _break(sc, at, run, texts, top)
                    if found is not None:
                        out.append(found)
    return out


def _break(sc: SheetContext, at: int, run: Run, texts: list[str], top) -> Break | None:
    cell = run.cells[at]
    formula = sc.formulas[sc.index[cell]]
    odd = texts.count(formula.r1c1)
    if odd >= top[1] or _covers_run(formula, run, cell):
        return None
    members = [i for i, t in enumerate(texts) if t == top[0]]
    nearest = min(members, key=lambda i: (abs(i - at), i))
    model = sc.formulas[sc.index[run.cells[nearest]]]
    if model.sketch != formula.sketch:
        return None
    copy = reanchor(model, cell)
    if copy is None:
        return None
    sides = [i for i in (at - 1, at + 1) if 0 <= i < len(texts)]
    interior = len(sides) == 2 and all(texts[i] == top[0] for i in sides)
    share = top[1] / len(texts)
    return Break(cell, run, formula, model, share, interior, odd, "=" + copy.text.lstrip("="),
                 _detail(formula, copy.refs))  # fmt: skip


def _covers_run(formula: Formula, run: Run, cell) -> bool:
    """Whether a reference of the formula covers another cell of its run (it aggregates it)."""
    others = [c for c in run.cells if c != cell]
    for ref in refs_of(formula.ast):
        box = ref_box(ref)
        if box is None or (ref.sheet is not None and ref.sheet != formula.host_sheet):
            continue
        if any(box[0] <= r <= box[2] and box[1] <= c <= box[3] for r, c in others):
            return True
    return False


def _detail(formula: Formula, expected_refs) -> str:
    """How the cell's references differ from the re-anchored block formula's, in words."""
    own = [ref_box(r) for r in refs_of(formula.ast)]
    expected = [ref_box(r) for r in expected_refs]
    if len(own) != len(expected):
        return "its references are not the block's"
    for got, want in zip(own, expected, strict=True):
        if got == want or got is None or want is None:
            continue
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
