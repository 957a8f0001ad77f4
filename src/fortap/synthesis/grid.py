"""A sheet's numbers as one dense array, for gathering many cells at once.

`Grid.of(sheet)` holds every number cell's value (NaN elsewhere: empty, text, booleans, errors);
a date counts as its serial day (`=B6+7` in a schedule), and a formula cell by its cached value. `Grid.view(hidden)` gives the gather function the
templates evaluate with (`template.Values`): cells off the sheet and the `hidden` ones read as
NaN, so nothing a search does reads a hidden cell. Sheets past `MAX_CELLS` in their used box get
no grid (`Grid.of` returns None) and no synthesis: their search would not fit its budget anyway.
It also indexes the sheet's numbers by value (`holders`), to find the fixed cell that holds a
constant a block agrees on.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

import numpy as np

from fortap.sheet.model import Sheet

MAX_CELLS = 4_000_000  # used box of a sheet past which no grid is built
EPOCH = dt.datetime(1899, 12, 30)  # serial day 0 of Excel's 1900 date system


def _number(cell) -> float | None:
    """A cell's number as a spreadsheet computes with it: a date as its serial day count."""
    if cell.kind == "number" and not isinstance(cell.value, bool):
        v = float(cell.value)
        return v if math.isfinite(v) else None
    if cell.kind == "date" and isinstance(cell.value, str):
        try:
            moment = dt.datetime.fromisoformat(cell.value)
        except ValueError:
            return None
        return (moment - EPOCH).total_seconds() / 86400.0
    return None


@dataclass
class Grid:
    """The numbers of one sheet, dense (rows, cols), NaN where there is none."""

    values: np.ndarray  # (n_rows, n_cols) float64
    _sorted: tuple | None = field(default=None, repr=False)  # (keys (m,), rows (m,), cols (m,))

    @classmethod
    def of(cls, sheet: Sheet) -> Grid | None:
        if sheet.n_rows * sheet.n_cols > MAX_CELLS:
            return None
        grid = np.full((max(sheet.n_rows, 1), max(sheet.n_cols, 1)), np.nan)
        for (r, c), cell in sheet.cells.items():
            v = _number(cell)
            if v is not None and r < grid.shape[0] and c < grid.shape[1]:
                grid[r, c] = v
        return cls(grid)

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape  # type: ignore[return-value]

    def view(self, hidden: frozenset[tuple[int, int]] = frozenset()):
        """A gather (rows (n,), cols (n,)) -> (n,) values, NaN off the sheet and at `hidden`."""
        n_rows, n_cols = self.shape
        grid = self.values
        gone = np.array(sorted(r * n_cols + c for r, c in hidden if 0 <= r < n_rows
                               and 0 <= c < n_cols), np.int64)  # fmt: skip
        few = [(int(g // n_cols), int(g % n_cols)) for g in gone] if len(gone) <= 4 else None

        def values(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
            rows, cols = np.broadcast_arrays(np.asarray(rows), np.asarray(cols))
            inside = (rows >= 0) & (rows < n_rows) & (cols >= 0) & (cols < n_cols)
            out = np.full(rows.shape, np.nan)
            out[inside] = grid[rows[inside], cols[inside]]
            if few:  # the target alone, mostly: compared directly, not searched
                for r, c in few:
                    out[(rows == r) & (cols == c)] = np.nan
            elif len(gone):
                out[np.isin(rows * n_cols + cols, gone) & inside] = np.nan
            return out

        return values

    def holders(self, k: float, tol: float) -> list[tuple[int, int]]:
        """The cells whose number is within `tol` of `k`, in reading order."""
        if self._sorted is None:
            rows, cols = np.nonzero(np.isfinite(self.values))
            vals = self.values[rows, cols]
            order = np.argsort(vals, kind="stable")
            self._sorted = (vals[order], rows[order], cols[order])
        keys, rows, cols = self._sorted
        lo = np.searchsorted(keys, k - tol, side="left")
        hi = np.searchsorted(keys, k + tol, side="right")
        return sorted(zip(rows[lo:hi].tolist(), cols[lo:hi].tolist(), strict=True))
