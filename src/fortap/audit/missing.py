"""Missing formulas seen through structure: a typed number in a run of formulas.

In a value run (`structure.runs`: formulas and typed numbers, adjacent along a column or a
row) a typed number whose run-mates are mostly formulas is a candidate for a formula typed
over, or never written. The run's most frequent R1C1 (ties: the nearest formula's) re-anchored
to the cell is the fix (`suggest.api.reanchor`, from the block's nearest member). Only formulas that
continue along the run count (`_along`): a formula dragged down a column is no row-mate of the
typed numbers beside it;
`Hole.share` (formulas among the other cells of the run) and `Hole.hole` (the two neighbours
along the run hold that same formula) measure how strongly the structure asks for it. Whether
the fix gives the typed value is checked later, for the survivors only (`evidence`).

A table's line of totals is one line across blank spacer columns (or rows) too: a typed number
in no such run, in a row whose other cells hold totals of their own columns (`=SUM(C6:C19)` at
C20), is a hole of that line (`line_holes`, `Hole.line`), its fix the nearest total
re-anchored to it; likewise in a column of row totals, on either side of its rows (a "Full
year" column left of its quarters). On TASI's key sheets 44 such numbers beside totals above or
before their range get a fix giving their value, 39 of them key cells; 159 more beside totals
below or after it, 98 of them key cells. A "total" of one cell is none (`=AVERAGE(K9,0)`, a
block's `=AVERAGE(K9,M9)` with a reference typed over): a column holding one such formula is
no line of totals, and its typed zeros are no holes of it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from fortap.audit.aggregates import totals
from fortap.audit.structure import AXES, Run, dominant, is_number, nearest, runs
from fortap.formula import Formula
from fortap.suggest.api import SheetContext, reanchor


@dataclass(frozen=True)
class Hole:
    """A typed number in a run holding formulas, as measured (before scoring)."""

    cell: tuple[int, int]
    run: Run
    model: Formula  # the run's formula at its nearest member
    formulas: int  # formula cells in the run
    share: float  # formulas / the run's other cells
    hole: bool  # both neighbours along the run hold the model's R1C1
    fix: str | None  # the model re-anchored to the cell (None: a reference leaves the sheet)
    line: bool = False  # a hole of a line of totals across gaps (`line_holes`), not of a run


def numbers(sc: SheetContext) -> set[tuple[int, int]]:
    """The sheet's typed numbers."""
    s = sc.sheet
    return {rc for rc in s.cells if is_number(s, *rc)}


def holes(sc: SheetContext, typed: set[tuple[int, int]] | None = None) -> list[Hole]:
    """Every typed number of the sheet in a value run that holds at least one formula, per axis
    (by cell, then axis)."""
    typed = numbers(sc) if typed is None else typed
    places = typed | set(sc.cells)
    out = [h for axis in AXES for run in runs(places, axis) for h in _run_holes(sc, run, typed)]
    return sorted(out, key=lambda h: (h.cell, h.run.axis))


def _run_holes(sc: SheetContext, run: Run, typed: set[tuple[int, int]]) -> list[Hole]:
    """The holes of one run: what the run says (its formulas along it, their dominant R1C1) is
    read once, not once per typed cell (`structure.nearest`)."""
    slots = [sc.index.get(c) for c in run.cells]
    texts = [None if k is None else sc.r1c1s[sc.group[k]] for k in slots]
    along = [i for i, k in enumerate(slots) if k is not None and _along(texts, i)]
    if not along:
        return []
    top = dominant([texts[i] for i in along])
    at_text: dict[str, list[int]] = {}  # R1C1 -> its formulas' places along the run, in order
    for i in along:
        at_text.setdefault(texts[i], []).append(i)  # type: ignore[arg-type]
    count = Counter(texts)
    share = len(along) / (len(run.cells) - 1)
    out = []
    for at, cell in enumerate(run.cells):
        if cell not in typed:
            continue
        text = top[0] if top is not None else texts[nearest(along, at)]
        model = sc.formulas[slots[nearest(at_text[text], at)]]  # type: ignore[index]
        sides = [i for i in (at - 1, at + 1) if 0 <= i < len(slots)]
        hole = len(sides) == 2 and all(texts[i] == text for i in sides) and count[text] >= 2
        out.append(Hole(cell, run, model, len(along), share, hole, _fix(model, cell)))
    return out


def _along(texts: list[str | None], i: int) -> bool:
    """Whether slot `i`'s formula continues along the run: a neighbour holds the same R1C1 (a
    formula dragged down a column says nothing of the typed numbers of its row), or the cell
    past the typed one does (`=B2+C2`, typed, `=B4+C4`)."""
    return any(0 <= j < len(texts) and texts[j] == texts[i] for j in (i - 1, i + 1, i - 2, i + 2))


def line_holes(sc: SheetContext, typed: set[tuple[int, int]]) -> list[Hole]:
    """Each number of `typed` in a row holding totals of their own columns (ranges above or
    below it, in other columns), or in a column holding totals of their own rows (ranges before
    or after it): a hole of that line of totals, its fix the nearest total re-anchored (ties:
    the earlier)."""
    lines: dict[tuple[int, int], list[tuple[int, int]]] = {}  # (axis, row or col) -> totals
    # a column's total lies on its row's line, a row's on its column's
    for t in totals(sc, after=True):
        top, left, bottom, right = t.box
        if top == bottom and left == right:
            continue  # `=AVERAGE(K9,0)` "totals" one cell: no line of totals holds it
        lines.setdefault((1 - t.axis, t.cell[t.axis]), []).append(t.cell)
    out = []
    for cell in sorted(typed):
        for axis in AXES:
            on_line = lines.get((axis, cell[1 - axis]))
            if not on_line:
                continue
            at = cell[axis]
            near = min(on_line, key=lambda t: (abs(t[axis] - at), t[axis]))
            model = sc.formulas[sc.index[near]]
            line = Run(axis, tuple(sorted([*on_line, cell])))
            out.append(Hole(cell, line, model, len(on_line), 1.0, False, _fix(model, cell), True))
    return out


def _fix(model: Formula, cell: tuple[int, int]) -> str | None:
    """`model` re-anchored to `cell`, as its fix reads (None: a reference leaves the sheet)."""
    copy = reanchor(model, cell)
    return None if copy is None else "=" + copy.text.lstrip("=")
