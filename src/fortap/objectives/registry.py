"""The pretraining objectives by name; the CLI's `--objectives` choices come from here.

Adding an objective is one module exposing an `Objective` plus one line below.
"""

from __future__ import annotations

from fortap.objectives import cell_cloze, formula_mlm, mlm, ncp, nrp, table_context
from fortap.objectives.base import Objective

OBJECTIVES: dict[str, Objective] = {
    "mlm": mlm.OBJECTIVE,
    "cell_cloze": cell_cloze.OBJECTIVE,
    "table_context": table_context.OBJECTIVE,
    "nrp": nrp.OBJECTIVE,
    "ncp": ncp.OBJECTIVE,
    "formula_mlm": formula_mlm.OBJECTIVE,
}


def resolve(names: list[str] | tuple[str, ...]) -> list[Objective]:
    """The named objectives in target-building order; an unknown name raises ValueError."""
    unknown = [n for n in names if n not in OBJECTIVES]
    if unknown:
        raise ValueError(f"unknown objective {unknown[0]!r}; choose from {', '.join(OBJECTIVES)}")
    return sorted((OBJECTIVES[n] for n in dict.fromkeys(names)), key=lambda o: o.order)
