"""The fixed rule a spreadsheet user has without suggestions: fill from a neighbour, or AutoSum.

Written once for the rule baseline (`tasks.formula_prediction.rule_baseline`, over a table) and
for the suggestion engine's rule order (`suggest.features.rule_positions`, over the `fill_order`
of copy candidates and the `autosum_order` of template ones):

1. *fill*: copy a formula cell of the target's column within `REACH` cells, nearest first,
   above before below at equal distance; then one of its row, left before right (`fill_key`,
   `fill_scan`);
2. *AutoSum*: `SUM` over the contiguous run of numbers directly above the target, and over the
   one directly left (`number_run`); Excel sums the run above when the cell above holds a
   number, so that one comes first (`autosum_runs`).

`rule_key` sorts candidates into this order: fills by their place in the scan, then AutoSums by
theirs, then every other candidate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

Cell = tuple[int, int]  # (row, col), 0-based
REACH = 10  # the fill rule looks this far up/down the column and left/right along the row


def fill_key(target: Cell, at: Cell) -> tuple[int, int, int]:
    """The place of a source cell `at` in the fill rule's order for `target`: its column first,
    then its row (then any other cell), nearest first, above (left) before below (right)."""
    line = 0 if at[1] == target[1] else 1 if at[0] == target[0] else 2
    after = int(at[0] > target[0] or at[1] > target[1])
    return line, abs(at[0] - target[0]) + abs(at[1] - target[1]), after


def fill_scan(row: int, col: int, reach: int = REACH) -> list[Cell]:
    """The cells the fill rule looks at for the target (row, col), in its order (`fill_key`);
    cells before the sheet's first row or column included (callers keep the formula cells)."""
    steps = [s * d for d in range(1, reach + 1) for s in (-1, 1)]
    spots = [(row + k, col) for k in steps] + [(row, col + k) for k in steps]
    return sorted(spots, key=lambda at: fill_key((row, col), at))


def number_run(is_number: Callable[[Cell], bool], spots: Iterable[Cell]) -> list[Cell]:
    """The leading cells of `spots` that hold numbers (nearest first)."""
    run = []
    for at in spots:
        if not is_number(at):
            break
        run.append(at)
    return run


def autosum_runs(above: Sequence[Cell], left: Sequence[Cell]) -> list[tuple[str, Sequence[Cell]]]:
    """The AutoSum rule's (side, run) pairs in its order, empty runs left out: the run above
    (what Excel sums when the cell above holds a number), then the run left."""
    return [(side, run) for side, run in (("above", above), ("left", left)) if run]


def rule_key(fill: float | None, autosum: float | None) -> tuple[int, float]:
    """The rule's order of a candidate: by its place in the fill scan (`fill`), else in the
    AutoSum order (`autosum`), else after both (None: not that kind of candidate)."""
    if fill is not None:
        return (0, fill)
    if autosum is not None:
        return (1, autosum)
    return (2, 0.0)
