"""How much work one value preview, and one suggestion call's previews, may do (`PreviewLimits`).

The limits are chosen once for every workbook, never tuned to a file:

- *cells route*: at most `copy_cells` input cells are copied into the scratch engine; a
  candidate reading more takes the engine route.
- *engine route*: formualizer's `evaluate_cell` walks the target's whole chain of precedent
  formulas on every evaluation, clean or not (20,000 chained cells: ~56 ms a call, measured with
  formualizer 0.13). Before evaluating, the chain is traced with formualizer's bounded `trace`,
  which stops after `chain_cells` references of the chain's formulas (a range counts once; its
  first `chain_cells` cells are followed; 3-35 µs a reference). A chain the trace does not
  finish is not evaluated, and the preview says "not computed: its chain of precedents is
  longer than N references". Cells that only hold values end the chain: a lookup into 50,000
  numbers is evaluated.
- *time per call*: previews through the whole workbook (the loaded engine) share `call_ms` per
  suggestion call (formulon previews array formulas on the cells route: `preview_array`). One
  evaluation cannot be stopped once started (formualizer holds the GIL, so no timer can call its
  `cancel`, and its deadline is a load-time setting that would also cut the workbook's own full
  evaluation). So such a preview starts only while the time the call has spent on them plus the
  time expected of one evaluation on this workbook (`EngineCosts`: the largest of the last ones
  measured; a preview cut by the chain bound evaluated nothing and is not one) stays inside it;
  the others say "not computed: ..." with that time. The first evaluation on a workbook always
  runs (nothing is known yet), bounded by the chain only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import formualizer as fz

from fortap.formula.references import quote_sheet
from fortap.sheet.model import a1
from fortap.suggest.calc_book import reraise_interrupt


@dataclass(frozen=True)
class PreviewLimits:
    """Bounds on a preview's work (None: unbounded, the benches' baseline)."""

    copy_cells: int = 50_000  # input cells copied on the cells route; above, the engine route
    chain_cells: int | None = 1_000  # references of the precedent chain walked for one preview
    call_ms: float | None = 100.0  # whole-workbook preview time one suggestion call may spend

    def __post_init__(self) -> None:
        if self.copy_cells < 1:
            raise ValueError(f"PreviewLimits.copy_cells must be >= 1, got {self.copy_cells}")
        if self.chain_cells is not None and self.chain_cells < 1:
            raise ValueError(f"PreviewLimits.chain_cells must be >= 1, got {self.chain_cells}")
        if self.call_ms is not None and self.call_ms <= 0:
            raise ValueError(f"PreviewLimits.call_ms must be > 0, got {self.call_ms}")


# the previews as they were before any bound (200,000 cells copied at most): the baseline
UNBOUNDED = PreviewLimits(copy_cells=200_000, chain_cells=None, call_ms=None)
COSTS_KEPT = 5  # the last route times measured; the expected one is their largest


@dataclass
class CallBudget:
    """One suggestion call's engine-route preview time (`PreviewLimits.call_ms`)."""

    limit_ms: float | None
    spent_ms: float = 0.0


@dataclass
class EngineCosts:
    """A workbook's measured preview times by one route (ms), the last `COSTS_KEPT`; the time
    expected of the next is the largest of them (a route that once took more than a call's
    budget on this workbook is not tried again in an interactive call: how long one evaluation
    takes cannot be bounded from outside, so a p95 or a maximum is kept only this way)."""

    seen: list[float] = field(default_factory=list)

    def expected(self) -> float:
        return max(self.seen) if self.seen else 0.0

    def add(self, ms: float) -> None:
        self.seen = [*self.seen[-(COSTS_KEPT - 1) :], ms]

    def allows(self, budget: CallBudget | None) -> bool:
        """Whether one more engine-route preview fits in the call's budget."""
        if budget is None or budget.limit_ms is None:
            return True
        return budget.spent_ms + self.expected() <= budget.limit_ms


def over_time(costs: EngineCosts, budget: CallBudget) -> str:
    """The "not computed" reason of a whole-workbook preview the call's budget leaves out."""
    return (
        f"previews through the whole workbook took up to {costs.expected():.0f} ms here, over "
        f"the {budget.limit_ms:.0f} ms one suggestion may spend on them"
    )


def chain_longer(engine: fz.Workbook, sheet: str, row: int, col: int, refs: int | None) -> bool:
    """Whether the precedent chain of the (1-based) cell, as set now, follows `refs` references
    or more (formualizer's bounded trace; a trace it refuses counts as short: the evaluation
    then runs as it did before any bound)."""
    if refs is None:
        return False
    root = f"{quote_sheet(sheet)}!{a1(row - 1, col - 1)}"
    try:
        trace = engine.trace(
            [root],
            max_depth=refs,
            max_nodes=4 * refs,
            max_links=refs,
            max_work=40 * refs,
            range_member_budget=refs,
            include_values=False,
        )
        return len(trace.links) >= refs
    except BaseException as err:
        reraise_interrupt(err)
        return False


def chain_reason(refs: int) -> str:
    return f"its chain of precedents is longer than {refs:,} references"


def cut_by_chain(note: str | None, refs: int | None) -> bool:
    """Whether a preview's note says the chain bound cut it (nothing was evaluated)."""
    return refs is not None and note is not None and note.endswith(chain_reason(refs))
