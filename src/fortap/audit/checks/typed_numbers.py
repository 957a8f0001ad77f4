"""The `typed_numbers` check: every typed number scored as a missing formula.

Structure first. A typed number in a value run with formulas, or in a line of totals across
gaps (`missing.holes`, `missing.line_holes`; one hole per number, a run's before a line's), gets
the hole's fix (the run's formula re-anchored to it) previewed at the cell, the cell hidden
(`evidence.fix_value`, about 1 ms); a fix that gives the typed value at the precision its number
format shows settles it (`fix_equal`). A number in no run with formulas has no block asking for
a formula there. Every number the structure did not settle asks for the suggestion engine
(`Found.engine`): its top suggestions (`evidence.candidates`), the first that gives the typed
value a match, except a total over the rows above a number that a total of the table already
adds up (`aggregates.totalled`). The auditor grants those engine checks in the order of
`Found.priority`: a hole between two equal formulas, a high share of formulas in the run, the
last number of a run (where totals stand). A number neither a hole nor the engine says anything
of carries only `BARE` facts and scores the weights' base rate (`score.is_bare`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from fortap.audit import evidence
from fortap.audit.aggregates import adds_up_to, totalled
from fortap.audit.checks.base import AuditedSheet, Cell, Check, Fact, Found
from fortap.audit.display import same_shown
from fortap.audit.evidence import Match
from fortap.audit.findings import MISSING
from fortap.audit.missing import Hole, holes, line_holes
from fortap.audit.structure import AXES, AXIS_NAMES, best_per_cell, runs
from fortap.sheet.model import a1
from fortap.suggest import api

WEAK_SOURCES = frozenset({"verbatim", "induced", "echo", "book"})  # matches: `weak_equal`
BARE = frozenset({"checked", "run_end"})  # how a number was looked at, not what points at it

FACTS = (
    # the structure's hole (`missing.Hole`)
    Fact("total_line", "a number in a line of totals across gaps, whose other totals are formulas"),
    Fact("run_share", "formulas among the run's other cells, fully counted from 3 formulas"),
    Fact("hole", "both neighbours along the run hold the run's formula"),
    Fact("run_formulas", "formula cells of the run", count=True),
    Fact("run_cells", "cells of the run", count=True),
    Fact("fix_equal", "the hole's fix gives the typed value"),
    # the engine's first suggestion that gives the typed value (`evidence.Match`)
    Fact("top_equal", "it is the engine's top suggestion"),
    Fact("lower_equal", "it is a lower one"),
    Fact("weak_equal", "it comes from a source that matches by chance more often (WEAK_SOURCES)"),
    Fact("match_score", "its ranker score"),
    *(Fact(f"match_{s}", f"it comes from the {s} source") for s in api.source_names()),
    Fact("copy_block", "a copy's block: log(1 + its formulas)"),
    # how the number was looked at (`BARE`)
    Fact("checked", "the engine was asked (the auditor's budget granted a check)"),
    Fact("run_end", "the last cell of a value run of 3+ cells"),
)


def find(sheet: AuditedSheet) -> list[Found]:
    """One finding per typed number of the sheet (labels apart), in row, column order."""
    sc, typed = sheet.context, sheet.typed
    best = {h.cell: h for h in best_per_cell(holes(sc, typed), _hole_rank)}
    for h in best_per_cell(line_holes(sc, typed - set(best)), _hole_rank):
        best[h.cell] = h
    ends = _run_ends(typed | set(sc.cells))
    inputs = functools.cache(lambda: totalled(sc, sheet.numbers))  # read on the first match
    return [_number(sheet, c, best.get(c), c in ends, inputs) for c in sorted(typed)]


def _hole_rank(h: Hole) -> tuple:
    return (h.hole, h.share, h.fix is not None)


def _run_ends(places: set[Cell]) -> set[Cell]:
    """The last cell of every value run of 3+ cells (where a total stands)."""
    return {run.cells[-1] for axis in AXES for run in runs(places, axis) if len(run.cells) >= 3}


def _number(sheet: AuditedSheet, cell: Cell, hole: Hole | None, end: bool,
            inputs: Callable[[], set[Cell]]) -> Found:  # fmt: skip
    """The finding of one typed number before the engine, with its engine check unless the
    hole's fix settles it."""
    got = _fix_number(sheet, cell, hole)
    found = _found(sheet, cell, hole, got, end)
    if got[1]:
        return found
    priority = (0.0 if hole is None else hole.share + 0.5 * hole.hole) + 0.25 * end

    def engine() -> Found:
        return _found(sheet, cell, hole, got, end, _match(sheet, cell, inputs), checked=True)

    return Found(cell, found.facts, found.evidence, found.fix, priority, engine)


def _fix_number(sheet: AuditedSheet, cell: Cell, hole: Hole | None) -> tuple[float | None, bool]:
    """The hole's fix previewed at the cell: its number, and whether it shows the typed one."""
    if hole is None or hole.fix is None:
        return None, False
    got = evidence.fix_value(sheet.suggester, sheet.name, cell, hole.fix)
    c = sheet.context.sheet.cell(*cell)
    return got, got is not None and same_shown(got, float(c.value), c.style.number_format)


def _match(sheet: AuditedSheet, cell: Cell, inputs: Callable[[], set[Cell]]) -> Match | None:
    """The engine's first suggestion that gives the typed number, if any."""
    c = sheet.context.sheet.cell(*cell)
    match = evidence.candidates(sheet.suggester, sheet.name, cell, float(c.value),
                                c.style.number_format, sheet.top)  # fmt: skip
    if match is not None and cell in inputs() and adds_up_to(match.formula, sheet.name, cell):
        return None  # a total over the rows above an input of the table's own total
    return match


def _found(sheet: AuditedSheet, cell: Cell, hole: Hole | None, got: tuple[float | None, bool],
           end: bool, match: Match | None = None, checked: bool = False) -> Found:  # fmt: skip
    """The typed number's facts, evidence and fix: `got`, its hole's fix previewed (the number,
    and whether it shows the typed one); `match`, the engine's when `checked`."""
    value = float(sheet.context.sheet.cell(*cell).value)
    facts: dict[str, float] = {}
    said: list[str] = []
    fix = None
    if hole is not None:
        fix = hole.fix
        if hole.line:  # a line of totals across gaps: the other totals of its row (column)
            facts["total_line"] = 1.0
            said.append(f"the other {AXIS_NAMES[1 - hole.run.axis]} totals of its "
                        f"{AXIS_NAMES[hole.run.axis]} ({hole.formulas}) are formulas")  # fmt: skip
        else:
            # a run of two says less than a run of ten: the share counts fully from 3 formulas
            facts["run_share"] = hole.share * min(hole.formulas, 3) / 3
            facts["hole"] = float(hole.hole)
            facts["run_formulas"] = float(hole.formulas)
            facts["run_cells"] = float(len(hole.run.cells))
            run = f"{AXIS_NAMES[hole.run.axis]} run {hole.run.span()}"
            said.append(f"{hole.formulas} of the other {len(hole.run.cells) - 1} cells of its "
                        f"{run} are formulas")  # fmt: skip
        number, equal = got
        if equal:
            facts["fix_equal"] = 1.0
            said.insert(0, f"{hole.fix} gives {number:,.10g}")
    if match is not None:
        # formulas fitted to the values (induced), echoes of equal values and formulas
        # copied from elsewhere match a typed number by chance more often than not
        name = "weak_equal" if match.source in WEAK_SOURCES else None
        facts[name or ("top_equal" if match.rank == 1 else "lower_equal")] = 1.0
        facts["match_score"], facts[f"match_{match.source}"] = match.score, 1.0
        if match.source == "copy":
            # the block it is copied from: on TASI the key's typed numbers match copies of
            # smaller blocks (mean log(1 + n) 1.5 against 2.4), a long dragged block's
            # formula gives a number by chance more often (chosen on inner folds of each half)
            facts["copy_block"] = match.block
        said.insert(0, f"{match.formula} ({match.source}, suggestion {match.rank}) gives it")
        fix = fix if hole is not None and hole.hole else match.formula
    facts["checked"], facts["run_end"] = float(checked), float(end)
    said = said or [
        "nothing in its runs" + (" or the suggestions" * checked) + " points at a formula"
    ]
    text = f"{a1(*cell)} holds {value:,.10g} typed by hand; " + "; ".join(said)
    return Found(cell, facts, text + ": missing formula", fix)


CHECK = Check("typed_numbers", MISSING, FACTS, find)
