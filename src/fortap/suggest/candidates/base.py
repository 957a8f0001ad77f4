"""What every candidate source gives and declares: `Candidate` and the `Source` contract.

A source proposes `Candidate`s for a target cell and declares, once, the features its
candidates carry (`FEATURES`): the ranker's columns are the union of these declarations, the
query's (`features.QUERY_FEATURES`) and the merge step's (`src_<name>` per source and
`features.RULE_FEATURES`), and a ranker refuses names that nothing declares
(`suggest.ranker`). A source that needs no run-time object is a `SourceFunction` over its
module's `candidates` function; one that does (the ranker's `CommonTable`, a loaded model) is a
class with the same three declarations as class attributes, built with that object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from fortap.suggest.context import BookContext, Place, Target

MODEL_SOURCE = "model"  # `model.ModelSource.name`, here so that naming it loads no torch


@dataclass(frozen=True)
class Candidate:
    """One suggestion before ranking."""

    formula: str  # Excel A1 text with a leading "=", `$` kept as the source had them
    source: str  # the `Source.name` of the source that proposed it first
    reason: str  # one line a user reads: "as in B3:B9, 7 cells filled down"
    features: Mapping[str, float]  # for the ranker; never derived from the target cell's content


class Source(Protocol):
    """A candidate source, as `candidates.generate` asks it."""

    @property
    def name(self) -> str:
        """Its candidates' `Candidate.source`, and their flag feature `src_<name>`."""
        ...

    @property
    def needs_formulas(self) -> bool:
        """Whether it proposes only where the workbook's formulas are visible (so never in
        the paper setting)."""
        ...

    @property
    def FEATURES(self) -> tuple[str, ...]:  # noqa: N802 - a declared constant
        """Every feature its candidates may carry."""
        ...

    def candidates(
        self, ctx: BookContext, target: Target, hidden: frozenset[Place]
    ) -> list[Candidate]:
        """Its candidates for `target`; the cells in `hidden` (the target among them) count as
        empty and formula-less."""
        ...


@dataclass(frozen=True)
class SourceFunction:
    """A source that needs no run-time object: its module's `candidates` function and its
    declarations."""

    name: str
    needs_formulas: bool
    FEATURES: tuple[str, ...]
    candidates: Callable[[BookContext, Target, frozenset[Place]], list[Candidate]]
