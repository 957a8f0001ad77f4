"""What every audit check declares and gives: `Fact`, `Check`, `Found`, and `AuditedSheet`.

A check finds cells of one finding kind (`findings.KINDS`) on a sheet and declares, once, the
facts its findings carry (`Check.facts`), each with how the score reads it (a count as
log(1 + x)). The audit's weights are one logistic model per kind over the facts that kind's
checks declare (`checks.declared`), and `score.load_weights` refuses a weights file whose facts
are not those. A check's `find` reads one `AuditedSheet` and returns `Found`s, unscored: the
auditor keeps one per cell and kind (the first check of `checks.CHECKS` that finds a cell
stands), scores it and drops it under its kind's threshold.

A found cell may ask for the suggestion engine (`Found.engine`): a call of 10-45 ms that returns
the finding again with the engine's evidence. The auditor grants those calls in the order of
`Found.priority` within its budget (`AuditConfig.max_checks`); a cell it does not grant keeps
the finding it has. Checks need no run-time object of their own (the engine comes with the
sheet), so a check is a record over its module's `find`, not a class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from fortap.audit.findings import KINDS
from fortap.audit.inconsistent import Break, breaks
from fortap.audit.labels import labels
from fortap.audit.missing import numbers
from fortap.errors import FortapError
from fortap.suggest.api import SheetContext, Suggester

Cell = tuple[int, int]  # 0-based row, col


@dataclass(frozen=True)
class Fact:
    """A measured fact a check's findings may carry, by name, and how the score reads it."""

    name: str
    doc: str  # what it measures, in one line
    count: bool = False  # a count: the score reads log(1 + x) (`score.feature`)


@dataclass(frozen=True)
class AuditedSheet:
    """What a check reads of one sheet: the engine's workbook, the sheet's parsed formulas, its
    typed numbers and which of them are labels."""

    suggester: Suggester
    context: SheetContext
    numbers: set[Cell]  # the typed numbers, labels among them
    labels: set[Cell]  # years and codes heading a block (`labels.labels`): no audited numbers
    top: int = 3  # suggestions an engine check previews (`AuditConfig.top`)

    @property
    def name(self) -> str:
        return self.context.sheet.name

    @cached_property
    def typed(self) -> set[Cell]:
        """The typed numbers an audit scores: every one but the labels."""
        return self.numbers - self.labels

    @cached_property
    def breaks(self) -> list[Break]:
        """The formulas breaking a block (`inconsistent.breaks`), measured once a sheet."""
        return breaks(self.context)


def read_sheet(sg: Suggester, name: str, top: int = 3) -> AuditedSheet:
    """The sheet `name` of the suggester's workbook as checks read it."""
    sc = sg.context.sheet(name)
    typed = numbers(sc)
    return AuditedSheet(sg, sc, typed, labels(sc, typed), top)


@dataclass(frozen=True)
class Found:
    """A cell a check flags, before scoring."""

    cell: Cell
    facts: dict[str, float]  # by declared name, in the order measured (the score adds them so)
    evidence: str  # one sentence a user reads
    fix: str | None = None  # the formula to write, when one is known
    priority: float = 0.0  # for `engine`: the cells the structure points at most ask first
    # the finding again with the engine's evidence, one engine check (None: it asks for none)
    engine: Callable[[], Found] | None = None


@dataclass(frozen=True)
class Check:
    """An audit check: its name, the kind of its findings, the facts they carry and `find`."""

    name: str
    kind: str  # one of `findings.KINDS`
    facts: tuple[Fact, ...]
    find: Callable[[AuditedSheet], list[Found]]

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise FortapError(f"check {self.name!r}: kind {self.kind!r} is not one of {KINDS}")
        names = [f.name for f in self.facts]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise FortapError(f"check {self.name!r} declares {', '.join(twice)} twice")
