"""What previews say about a flagged cell: does a formula give the value the cell shows?

Two checks, both with the cell itself hidden (it reads as empty, so a formula cannot see the
value it is compared with):
- `fix_value`: the structural fix (`missing.Hole.fix`, `inconsistent.Break.fix`) previewed at
  the cell (`suggest.api.preview`);
- `candidates`: the suggestion engine asked for the cell as a user would (`suggest.api.candidates`,
  the sheet setting): the first of its `top` printed suggestions whose preview equals the
  typed number at display precision (`display.same_shown`), with its rank and ranker score,
  and for a copy the size of the block it is copied from.
A preview that is an error, or that the engine could not compute, is no evidence either way: an
inherited error says nothing of the typed number, and neither does an unknown value.
"""

from __future__ import annotations

from dataclasses import dataclass

from fortap.audit.display import same_shown
from fortap.suggest import api
from fortap.suggest.api import Preview, Suggester


@dataclass(frozen=True)
class Match:
    """The engine's first suggestion that gives the typed value (rank 1 = its top one)."""

    rank: int
    formula: str
    score: float
    source: str
    block: float = 0.0  # a copy's block, log(1 + its formulas): `copy_log_n`; 0 for other sources


def number_of(shown: Preview) -> float | None:
    """The preview's number; None for an error, text, a date shown as text or no value."""
    if shown.error is not None or not shown.computed or isinstance(shown.value, bool):
        return None
    return shown.value if isinstance(shown.value, float) else None


def fix_value(sg: Suggester, sheet: str, cell: tuple[int, int], fix: str) -> float | None:
    """The fix's number at the cell, with the cell hidden (None when it gives none)."""
    shown = api.preview(sg, sheet, cell, fix, hidden=frozenset({(sheet, *cell)}))
    return number_of(shown)


def candidates(sg: Suggester, sheet: str, cell: tuple[int, int], value: float, number_format: str,
               top: int) -> Match | None:  # fmt: skip
    """The first of the engine's `top` suggestions for the cell whose preview shows `value`."""
    for s, features in api.candidates(sg, sheet, cell, top):
        number = s.error is None and isinstance(s.value, float) and not isinstance(s.value, bool)
        if number and same_shown(s.value, value, number_format):
            return Match(s.rank, s.formula, s.score, s.source, features.get("copy_log_n", 0.0))
    return None
