"""The audit's checks, each a small module declaring one `base.Check`:

- `short_totals`: a column total whose range stops short of its numbers or reaches past them
  into empty cells (`inconsistent-formula`);
- `breaks`: a formula that breaks the block of formulas around it, in a reference or another
  part (`differs`: a function, operator, constant or anchoring) (`inconsistent-formula`);
- `typed_numbers`: every typed number, scored as a `missing-formula` from its hole in a run or a
  line of totals and, within the auditor's budget, the suggestion engine's candidates.

`CHECKS` names them all, in order: where two checks of a kind find one cell, the first stands
(a short total over a break). A new check is a module with a `CHECK` and one line here.
`declared` is the one list of the facts each kind's findings carry, what `score.Weights` has a
weight for and `fit.fit_weights` fits: a weights file whose facts differ is refused by name.
"""

from __future__ import annotations

from collections.abc import Sequence

from fortap.audit.checks import breaks, short_totals, typed_numbers
from fortap.audit.checks.base import Check, Fact
from fortap.audit.findings import KINDS
from fortap.errors import FortapError

CHECKS: tuple[Check, ...] = (short_totals.CHECK, breaks.CHECK, typed_numbers.CHECK)


def declared(checks: Sequence[Check] | None = None) -> dict[str, dict[str, Fact]]:
    """Kind -> fact name -> its declaration: every fact the findings of each kind may carry, as
    `checks` (default: `CHECKS`) declare them. A fact is declared once per kind, and a name
    counts (log(1 + x)) in every kind or in none: the weights file names its counts once."""
    out: dict[str, dict[str, Fact]] = {kind: {} for kind in KINDS}
    counted: dict[str, Fact] = {}
    for check in CHECKS if checks is None else checks:
        mine = out[check.kind]
        for fact in check.facts:
            if fact.name in mine:
                raise FortapError(f"check {check.name!r}: {check.kind} fact {fact.name!r} is "
                                  "declared by another check of that kind")  # fmt: skip
            if counted.setdefault(fact.name, fact).count != fact.count:
                raise FortapError(f"check {check.name!r}: fact {fact.name!r} is a count in one "
                                  "kind and not in another")  # fmt: skip
            mine[fact.name] = fact
    return out


def counts(checks: Sequence[Check] | None = None) -> frozenset[str]:
    """The names of the facts declared as counts (read as log(1 + x))."""
    return frozenset(n for facts in declared(checks).values() for n, f in facts.items() if f.count)
