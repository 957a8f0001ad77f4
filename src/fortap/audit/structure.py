"""Runs: the contiguous lines of cells an audit compares a cell with.

A *run* is a maximal stretch of adjacent cells along one column (axis 0) or one row (axis 1).
Two kinds are read: *formula runs* (every cell holds a formula: a dragged block and whatever
interrupts it inside) and *value runs* (every cell holds a formula or a typed number: a
table's column or row of figures, where a typed number can stand in for a formula). Text and
empty cells end both. Coordinates are 0-based `(row, col)` as in `fortap.sheet.model`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass

from fortap.sheet.model import Sheet, a1

AXES = (0, 1)  # 0: down a column, 1: along a row
AXIS_NAMES = ("column", "row")


@dataclass(frozen=True)
class Run:
    """Cells of one run in order (along `axis`), with the first and last place."""

    axis: int
    cells: tuple[tuple[int, int], ...]

    def span(self) -> str:
        """`F3:F20` (A1 text of the first and last cell)."""
        return f"{a1(*self.cells[0])}:{a1(*self.cells[-1])}"

    def position(self, cell: tuple[int, int]) -> int:
        return self.cells.index(cell)


def is_number(sheet: Sheet, row: int, col: int) -> bool:
    """A number typed by hand (no formula; booleans are not numbers here)."""
    cell = sheet.cell(row, col)
    return cell.formula is None and cell.kind == "number" and not isinstance(cell.value, bool)


def runs(places: set[tuple[int, int]], axis: int) -> list[Run]:
    """The maximal runs of `places` along `axis` (each at least one cell)."""
    lines: dict[int, list[int]] = {}
    for r, c in places:
        lines.setdefault(c if axis == 0 else r, []).append(r if axis == 0 else c)
    out = []
    for fixed, steps in lines.items():
        steps.sort()
        start = 0
        for i in range(1, len(steps) + 1):
            if i == len(steps) or steps[i] != steps[i - 1] + 1:
                part = steps[start:i]
                cells = tuple((s, fixed) if axis == 0 else (fixed, s) for s in part)
                out.append(Run(axis, cells))
                start = i
    return out


def dominant(texts: list[str]) -> tuple[str, int] | None:
    """The most frequent text and its count; None when two texts tie for first place."""
    if not texts:
        return None
    (top, n), *rest = Counter(texts).most_common(2)
    if rest and rest[0][1] == n:
        return None
    return top, n


def nearest(places: list[int], at: int) -> int:
    """The place of the sorted `places` nearest `at` (ties: the first), by bisection: a run of
    20,000 cells searched once per cell took minutes (`vkt_tertile_mean.xlsx`)."""
    j = bisect_left(places, at)
    return min(places[max(j - 1, 0) : j + 1], key=lambda i: (abs(i - at), i))


def best_per_cell(items, rank) -> list:
    """One item per cell (`item.cell`), the best by `rank`, ties to the first: a run per axis
    may flag the same cell twice."""
    out = {}
    for item in items:
        old = out.get(item.cell)
        if old is None or rank(item) > rank(old):
            out[item.cell] = item
    return list(out.values())
