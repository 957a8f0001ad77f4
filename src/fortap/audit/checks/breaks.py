"""The `breaks` check: a formula that breaks the block of formulas around it.

`inconsistent.breaks` measures them (a formula whose R1C1 differs from its block's, with the
same computation or the block's references less one, or one other part differing:
`checks.differs` gives its facts and words); a cell flagged along both its column and
its row is one finding, the break inside its block first, then the one whose block holds more of
the run. The fix is the block's formula re-anchored to the cell; previewed there (the cell
hidden), it says whether the cell's value would change (`fix_differs`).
"""

from __future__ import annotations

from fortap.audit import evidence
from fortap.audit.checks import differs
from fortap.audit.checks.base import AuditedSheet, Check, Fact, Found
from fortap.audit.display import same_shown
from fortap.audit.findings import INCONSISTENT
from fortap.audit.inconsistent import Break, describe
from fortap.audit.structure import best_per_cell
from fortap.sheet.model import a1
from fortap.suggest import api

# `run_cells` counts up to this: the 75th percentile of the run lengths of the TASI key's
# inconsistent-formula findings (13 cells), which the weights are fitted on
RUN_SEEN = 13

FACTS = (
    Fact("block_share", "the block's cells / the run's cells"),
    Fact("interior", "both neighbours along the run hold the block's formula"),
    Fact("odd", "cells of the run holding the cell's own R1C1, itself included", count=True),
    Fact("run_cells", f"cells of the run, up to {RUN_SEEN}", count=True),
    Fact("slip", "the block's share if the cell is inside it and its references slipped by one"),
    Fact("dropped", "another sketch: the block's references less one (a term left out)"),
    Fact("fix_differs", "the fix shows another number than the cell (only when both are numbers)"),
    *differs.FACTS,  # what differs when not a reference (`Break.differs`)
)


def find(sheet: AuditedSheet) -> list[Found]:
    """One finding per formula cell that breaks a block (`inconsistent.breaks`)."""
    return [_found(sheet, b) for b in best_per_cell(sheet.breaks, _rank)]


def _rank(b: Break) -> tuple:
    return (b.interior, b.share)


def _found(sheet: AuditedSheet, b: Break) -> Found:
    sg, name = sheet.suggester, sheet.name
    facts = {
        "block_share": b.share,
        "interior": float(b.interior),
        "odd": float(b.odd),
        # a run longer than most the key's breaks stand in counts as that long: the fit cannot
        # say what a length it never saw means (a large model's blocks run for 100+ cells)
        "run_cells": float(min(len(b.run.cells), RUN_SEEN)),
        # how much it breaks its block: one slip (each moved reference off by one) inside a
        # block, scored by the share of the run the block holds
        "slip": b.share if b.interior and b.by_one else 0.0,
        # another sketch: the block's references less one (a term left out)
        "dropped": float(b.dropped),
    }
    cell = sheet.context.sheet.cell(*b.cell)
    text = f"{a1(*b.cell)}: {describe(b)}; expected {b.fix}"
    if b.differs:  # another function, operator, constant or anchoring: said so
        more, said = differs.facts_and_words(sheet, b)
        facts |= more
        text = f"{a1(*b.cell)}: {b.formula.text}: {said}; expected {b.fix}"
    got = evidence.fix_value(sg, name, b.cell, b.fix)
    shown = evidence.number_of(api.current(sg, name, b.cell))
    if got is not None and shown is not None:
        changed = not same_shown(got, shown, cell.style.number_format)
        facts["fix_differs"] = float(changed)
        text += f" (gives {got:,.10g}, the cell shows {shown:,.10g})" if changed else ""
    return Found(b.cell, facts, text, b.fix)


CHECK = Check("breaks", INCONSISTENT, FACTS, find)
