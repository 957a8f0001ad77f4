"""A sheet squeezed to its occupied rows and columns, for views that draw a grid of it.

A sheet's used range can be 1,048,576 x 16,384 cells for one stray cell at XFD1048576; a grid
over that range would be billions of cells. `squeeze` keeps every row and column that holds a
cell and at most `gap` of the empty ones between two such, so what is drawn or typed grows
with the cells, not with the range. A sheet without long empty runs comes back unchanged. The
kept rows and columns remember their place in the sheet, for labels.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace

from fortap.sheet.model import Region, Sheet


@dataclass(frozen=True)
class Squeezed:
    """`sheet` with only the kept rows and columns; `rows[i]` is the original row of its row i."""

    sheet: Sheet
    rows: tuple[int, ...]
    cols: tuple[int, ...]


def kept(used: set[int], size: int, gap: int) -> tuple[int, ...]:
    """The used indices below `size`, with at most `gap` of the empty ones before each."""
    out: list[int] = []
    last = -1
    for i in sorted(u for u in used if u < size):
        out.extend(range(max(last + 1, i - gap), i))
        out.append(i)
        last = i
    return tuple(out)


def squeeze(sheet: Sheet, gap: int = 2) -> Squeezed:
    """The sheet over its occupied rows and columns (module doc); merges are kept when both of
    their corners' rows and columns are."""
    rows = kept({r for r, _ in sheet.cells}, sheet.n_rows, gap)
    cols = kept({c for _, c in sheet.cells}, sheet.n_cols, gap)
    row_at = {r: i for i, r in enumerate(rows)}
    col_at = {c: i for i, c in enumerate(cols)}
    cells = {
        (row_at[r], col_at[c]): cell
        for (r, c), cell in sheet.cells.items()
        if r in row_at and c in col_at
    }
    merged = tuple(m for m in (_merge(m, rows, cols) for m in sheet.merged) if m is not None)
    small = replace(
        sheet,
        n_rows=len(rows),
        n_cols=len(cols),
        cells=cells,
        merged=merged,
        hidden_rows=frozenset(row_at[r] for r in sheet.hidden_rows if r in row_at),
        hidden_cols=frozenset(col_at[c] for c in sheet.hidden_cols if c in col_at),
        tables=(),
        arrays=(),
    )
    return Squeezed(small, rows, cols)


def _merge(m: Region, rows: tuple[int, ...], cols: tuple[int, ...]) -> Region | None:
    top, bottom = bisect_left(rows, m.top), bisect_right(rows, m.bottom) - 1
    left, right = bisect_left(cols, m.left), bisect_right(cols, m.right) - 1
    if top > bottom or left > right:
        return None
    return Region(top, left, bottom, right)
