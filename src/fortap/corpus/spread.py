"""`spread`: a cap that keeps items at evenly spaced positions, in their order.

A split's examples and a workbook's targets come in reading order (workbook by workbook, sheet
by sheet, down each column), so the first `n` would all come from the first few places; `n`
evenly spaced ones reach every part, and the choice is deterministic. The formula-prediction
caps (`tasks.formula_prediction.split`) and the suggestion engine's targets per workbook
(`suggest.books.targets_of`, capped in `train-ranker` and `evaluate formula-suggestion`) use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def spread(items: Sequence[T], n: int | None) -> list[T]:
    """At most `n` of `items` at evenly spaced positions, order kept; all of them when `n` is
    None or at least their number."""
    if n is None or n >= len(items):
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]
