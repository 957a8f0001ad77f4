"""A cell's nearest header on each side: the header cell NRP pairs are made of.

The *top header* of table cell (r, c) is the lowest non-empty cell above it inside the
top-header rows of column c; the *left header* is the right-most non-empty cell left of it
inside the left-header columns of row r. A merged header keeps its value in its top-left cell
only, so an empty cell inside a merged region stands for that top-left cell.

Of a formula cell and a cell it references, the headers on the side where they differ are the
*non-shared* headers: cells on one row share their left header, so their top headers are the
non-shared ones (side "top"); cells on one column differ on the left (side "left").
"""

from __future__ import annotations

from typing import Literal

from fortap.encoding.piece import RC
from fortap.table.model import Table

Side = Literal["top", "left"]
SIDES: tuple[str, ...] = ("top", "left")


def merged_anchor(table: Table) -> dict[RC, RC]:
    """Every cell inside a merged region -> the region's top-left cell."""
    anchor: dict[RC, RC] = {}
    for region in table.merged:
        for r in range(region.top, region.bottom + 1):
            for c in range(region.left, region.right + 1):
                anchor[r, c] = (region.top, region.left)
    return anchor


def header_of(table: Table, rc: RC, side: str, anchor: dict[RC, RC] | None = None) -> RC | None:
    """The nearest non-empty header cell above (`top`) or left of (`left`) cell `rc`, or None."""
    anchor = merged_anchor(table) if anchor is None else anchor
    r, c = rc
    if side == "top":
        candidates = [(h, c) for h in range(min(table.top_header_rows, r) - 1, -1, -1)]
    elif side == "left":
        candidates = [(r, h) for h in range(min(table.left_header_cols, c) - 1, -1, -1)]
    else:
        raise ValueError(f"header_of: side must be 'top' or 'left', got {side!r}")
    for cell in candidates:
        found = anchor.get(cell, cell)
        if not table.cell(*found).is_empty:
            return found
    return None


def orientation(formula: RC, referenced: list[RC]) -> Side:
    """ "top" when at least as many referenced cells share the formula's row as its column."""
    same_row = sum(r == formula[0] for r, _ in referenced)
    same_col = sum(c == formula[1] for _, c in referenced)
    return "top" if same_row >= same_col else "left"
