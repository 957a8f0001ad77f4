"""The paper's "first five occurrences per row/column" rule over one sheet's formulas.

Dragged formulas would otherwise flood the corpus with near-copies. Two formulas are the same
when their `$`-aware R1C1 texts are equal (`notes/formula_statistics.md`: ignoring `$` first
would make every copy of `=B7*$S$2` look different). Walking the sheet in row-major order, a
formula is kept while fewer than `limit` earlier formulas with the same R1C1 text lie in its
column, and fewer than `limit` in its row; later copies are dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def first_occurrences(
    formulas: Iterable[tuple[int, int, str]], limit: int = 5
) -> set[tuple[int, int]]:
    """Cells (row, col) kept from `(row, col, r1c1)` triples of one sheet."""
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    in_col: Counter[tuple[int, str]] = Counter()
    in_row: Counter[tuple[int, str]] = Counter()
    kept: set[tuple[int, int]] = set()
    for row, col, r1c1 in sorted(formulas):
        c_key, r_key = (col, r1c1), (row, r1c1)
        if in_col[c_key] < limit and in_row[r_key] < limit:
            kept.add((row, col))
        in_col[c_key] += 1
        in_row[r_key] += 1
    return kept
