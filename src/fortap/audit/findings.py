"""`Finding`: one cell an audit flags, with its kind, score, evidence and fix.

Kinds (the two of the TASI answer key, `keys.TASI_KINDS`):
- `missing-formula`: a number typed by hand where the table computes (its run's other cells
  are formulas, or a strong candidate formula gives the same value at display precision);
- `inconsistent-formula`: a formula whose R1C1 breaks the block of formulas around it (the
  key's "formula error"); the fix re-anchors the block's formula to the cell.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from fortap.sheet.model import a1

MISSING = "missing-formula"
INCONSISTENT = "inconsistent-formula"
KINDS = (MISSING, INCONSISTENT)


@dataclass(frozen=True)
class Finding:
    """A flagged cell (0-based row and column); `score` in [0, 1], higher = surer."""

    sheet: str
    row: int
    col: int
    kind: str
    score: float
    evidence: str  # one sentence a user reads
    fix: str | None  # the formula to write, when one is known
    facts: tuple[tuple[str, float], ...] = ()  # the measured evidence, by name (for scoring)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Finding.kind must be one of {KINDS}, got {self.kind!r}")

    @property
    def a1(self) -> str:
        return a1(self.row, self.col)

    def to_json(self) -> dict:
        out = dataclasses.asdict(self)
        out["cell"] = self.a1
        out["facts"] = dict(self.facts)
        return out
