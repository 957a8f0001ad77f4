"""The 11-dim format vector of a cell, as TUTA feeds it to a linear format embedding.

| dim | feature | range |
|---|---|---|
| 0 | rows of the merged region the cell lies in (1 if unmerged) | 4 |
| 1 | columns of that merged region | 4 |
| 2-5 | top, bottom, left, right border | 1 |
| 6 | non-text data type (number, date, bool) | 1 |
| 7 | has a formula | 1 |
| 8 | bold font | 1 |
| 9 | background is white (no fill counts as white) | 1 |
| 10 | font is black (automatic colour counts as black) | 1 |

Each value is clipped to its range and divided by it, so the vector lies in [0, 1]. Every cell
of a merged region gets the region's size, as the reference does. `DEFAULT_FORMAT` (a 1x1,
white, black-font, borderless text cell) stands for [CLS], context tokens and padding.
"""

from __future__ import annotations

from collections.abc import Iterable

from fortap.sheet.model import Cell, Region

FormatVector = tuple[float, ...]

MERGE_RANGE = 4.0  # merged-region sizes are clipped at 4 rows / 4 columns
DEFAULT_FORMAT: FormatVector = (0.25, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0)
_NON_TEXT_KINDS = frozenset({"number", "date", "bool"})


def merge_spans(merged: Iterable[Region]) -> dict[tuple[int, int], tuple[int, int]]:
    """(rows, cols) of the merged region covering each merged cell; absent cells are 1x1."""
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    for region in merged:
        size = (region.n_rows, region.n_cols)
        for r in range(region.top, region.bottom + 1):
            for c in range(region.left, region.right + 1):
                spans[r, c] = size
    return spans


def format_vector(cell: Cell, span: tuple[int, int] = (1, 1)) -> FormatVector:
    """Format vector of `cell`, which lies in a merged region of `span` (rows, cols)."""
    style = cell.style
    return (
        min(span[0], MERGE_RANGE) / MERGE_RANGE,
        min(span[1], MERGE_RANGE) / MERGE_RANGE,
        float(style.border_top),
        float(style.border_bottom),
        float(style.border_left),
        float(style.border_right),
        float(cell.kind in _NON_TEXT_KINDS),
        float(cell.formula is not None),
        float(style.bold),
        float(_is_white(style.fill_color)),
        float(_is_black(style.font_color)),
    )


def _is_white(argb: str | None) -> bool:
    return argb is None or argb.upper().endswith("FFFFFF")


def _is_black(argb: str | None) -> bool:
    return argb is None or argb.upper().endswith("000000")
