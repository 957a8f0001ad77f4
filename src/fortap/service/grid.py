"""A rectangle of a `Sheet` as JSON for the web page: `parse_range` and `sheet_window`.

The page draws what it is sent: per cell the value (for a formula cell, as the engine computes
it now, so accepted formulas and the cells depending on them show current values), the formula
text, the number format and bold; and the merged regions that overlap the window. Rows and columns in the JSON are 1-based, as
a user reads them in A1 text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from fortap.errors import FortapError
from fortap.formula.references import parse_address
from fortap.sheet.model import Region, Sheet, a1

MAX_WINDOW_CELLS = 100_000  # cells one request may ask for; the page asks for tiles of 100 x 50


class BadRange(FortapError):
    """A `range` argument that is not `A1` or `A1:B2`, or is too large."""


class TooManyCells(FortapError):
    """A sheet too large for one request of a toggle that reads every cell."""


def refuse_large(sheet: Sheet, limit: int, what: str, instead: str | None = None) -> None:
    """`TooManyCells` when `sheet` has more than `limit` cells with content; `what` says what
    would read them ("the cell-type colouring types"), `instead` the command that can."""
    filled = sum(not cell.is_empty for cell in sheet.cells.values())
    if filled > limit:
        tail = f"; {instead} reads the whole sheet" if instead else ""
        raise TooManyCells(
            f"sheet {sheet.name!r} has {filled:,} cells with content, over the "
            f"{limit:,} {what} in one request{tail}"
        )


@dataclass(frozen=True)
class Window:
    """The 0-based inclusive rectangle asked for, already clipped to the sheet."""

    top: int
    left: int
    bottom: int
    right: int


def parse_cell_a1(text: str, sheet: str) -> tuple[int, int]:
    """`B7` -> (6, 1), 0-based; `BadRange` naming the sheet for anything else."""
    found = parse_address(text.strip())
    if found is None or found[1] is not None:  # not one cell inside Excel's grid
        raise BadRange(f"bad cell {text[:40]!r}: expected A1 text such as B7 (sheet {sheet!r})")
    return found[0].row, found[0].col


def parse_range(text: str | None, sheet: Sheet) -> Window:
    """`A1:Z100` (or one cell) clipped to the sheet's used range; None = the whole used range."""
    last_row, last_col = max(sheet.n_rows - 1, 0), max(sheet.n_cols - 1, 0)
    if text is None or not text.strip():
        window = Window(0, 0, last_row, last_col)
    else:
        parts = text.split(":")
        if len(parts) > 2:
            raise BadRange(f"bad range {text[:40]!r}: expected A1:B2 (sheet {sheet.name!r})")
        (r0, c0), (r1, c1) = (
            parse_cell_a1(parts[0], sheet.name),
            parse_cell_a1(parts[-1], sheet.name),
        )
        top, bottom = min(r0, r1), max(r0, r1)
        left, right = min(c0, c1), max(c0, c1)
        window = Window(top, left, min(bottom, last_row), min(right, last_col))
    n = max(window.bottom - window.top + 1, 0) * max(window.right - window.left + 1, 0)
    if n > MAX_WINDOW_CELLS:
        raise BadRange(
            f"range {text or 'A1:' + a1(window.bottom, window.right)} of sheet {sheet.name!r} "
            f"holds {n:,} cells, "
            f"over the limit of {MAX_WINDOW_CELLS:,} per request: ask for a smaller range"
        )
    return window


def json_value(value: Any) -> str | float | bool | None:
    """A cell value JSON can carry: NaN and infinities become their Excel-like text."""
    if isinstance(value, float) and not math.isfinite(value):
        return "#NUM!"
    return value


def sheet_window(
    sheet: Sheet,
    window: Window,
    accepted: Collection[str] = (),
    value_of: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """The cells of `window` that hold something or carry a format; `accepted` are the A1s of
    formulas the user accepted; `value_of(A1)` gives a formula cell's value as recomputed now
    (else the value the file cached)."""
    cells = []
    for r, c in _positions(sheet, window):
        cell = sheet.cells[(r, c)]
        style = cell.style
        if cell.is_empty and not _drawn_style(style):
            continue
        address = a1(r, c)
        value = cell.value
        if cell.formula is not None and value_of is not None:
            value = value_of(address)
        cells.append(
            {
                "row": r + 1,
                "col": c + 1,
                "a1": address,
                "value": json_value(value),
                "formula": cell.formula,
                "number_format": style.number_format,
                "bold": style.bold,
                "accepted": address in accepted,
            }
        )
    cells.sort(key=lambda x: (x["row"], x["col"]))
    box = Region(
        window.top, window.left, max(window.bottom, window.top), max(window.right, window.left)
    )
    merged = [m.a1 for m in sheet.merged if _overlaps(m, box)]
    return {
        "sheet": sheet.name,
        "range": box.a1,
        "n_rows": sheet.n_rows,
        "n_cols": sheet.n_cols,
        "cells": cells,
        "merged": merged,
    }


def _drawn_style(style) -> bool:
    """An empty cell is sent only when the page would draw it differently (a number format or
    bold, which a formula accepted there takes on)."""
    return style.bold or style.number_format != "General"


def _positions(sheet: Sheet, window: Window) -> list[tuple[int, int]]:
    """The stored cells inside `window`, by whichever is smaller: the window or the sheet."""
    area = (window.bottom - window.top + 1) * (window.right - window.left + 1)
    if area < len(sheet.cells):
        rows, cols = range(window.top, window.bottom + 1), range(window.left, window.right + 1)
        return [(r, c) for r in rows for c in cols if (r, c) in sheet.cells]
    return [
        (r, c)
        for r, c in sheet.cells
        if window.top <= r <= window.bottom and window.left <= c <= window.right
    ]


def _overlaps(a: Region, b: Region) -> bool:
    return a.top <= b.bottom and b.top <= a.bottom and a.left <= b.right and b.left <= a.right
