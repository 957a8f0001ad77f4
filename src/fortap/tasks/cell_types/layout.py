"""Where a cell stands among the others: neighbours, its row and column, the number block.

`layout_cues(occupied, rows, cols)` computes, for any cells of a sheet (occupied or not), the
`LAYOUT_FEATURES` from the sheet's occupied cells alone, with sorted keys and `searchsorted`
instead of a dense grid, so the cost grows with the cells, not with the used range:

- `num_of_neighbors=k` (SAUS's): how many of the four adjacent cells are occupied;
- the kind (0 empty, 1 text, 2 number, 3 other: date, bool, error) of each adjacent cell, and
  of the nearest occupied cell in each direction with its distance (`GAP_NONE` when none);
- the row's and the column's occupied and number cells;
- rows above the sheet's first row of numbers, rows below its last, columns left of its first
  column of numbers (negative inside the block): titles and headers sit above, notes below;
- the row's label (its first occupied cell): a total, aggregate or percent word, bold, its
  depth (leading spaces plus two per indent level) and how much deeper the next row's label
  lies (a total's parts follow it, indented);
- the column's heading (the nearest text above): a percent or total word, its distance;
- a number's share of the largest magnitude in its column, and the sum cues of `sums`.

Letters: M occupied cells, N cells asked about.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fortap.tasks.cell_types.sums import AGGREGATE_NAMES, aggregate_cues, sum_cues

TEXT, NUMBER = 1, 2
GAP_NONE = 64  # no occupied cell that way; nearer ones are capped one below
DIRECTIONS = ("up", "down", "left", "right")
LAYOUT_FEATURES = (
    *(f"num_of_neighbors={k}" for k in range(5)),
    *(f"{d}_kind" for d in DIRECTIONS), *(f"{d}_nearest_kind" for d in DIRECTIONS),
    *(f"{d}_gap" for d in DIRECTIONS),
    "row_cells", "row_numbers", "col_cells", "col_numbers", "row_number_share",
    "col_number_share", "rows_above_numbers", "rows_below_numbers", "cols_left_of_numbers",
    "label_total", "label_aggregate", "label_percent", "label_depth", "label_bold",
    "label_next_deeper", "heading_percent", "heading_total",
    "heading_gap", "col_max_share", "total_of_below", "total_of_above", "total_of_right",
    "total_of_left", *(f"col_{n}" for n in AGGREGATE_NAMES), *(f"row_{n}" for n in AGGREGATE_NAMES),
)  # fmt: skip


@dataclass(frozen=True)
class Occupied:
    """A sheet's occupied cells, in any order, with each cell's cues as a row label and as a
    column heading."""

    rows: np.ndarray  # (M,) int64
    cols: np.ndarray  # (M,) int64
    kinds: np.ndarray  # (M,) int64: TEXT, NUMBER or 3
    values: np.ndarray  # (M,) float64, a number's value, 0 elsewhere
    label: np.ndarray  # (M, 5) float64: total, aggregate and percent word, depth, bold
    heading: np.ndarray  # (M, 2) float64: percent word, total word


class _Line:
    """The occupied cells sorted along one axis: `major` the line (row or column), `minor` the
    place on it; `find` gives, for asked cells, the occupied index at, before and after them."""

    def __init__(self, major: np.ndarray, minor: np.ndarray, width: int) -> None:
        self.width = width
        self.order = np.lexsort((minor, major))  # (M,)
        self.keys = major[self.order] * width + minor[self.order]  # (M,) ascending
        self.major, self.minor = major[self.order], minor[self.order]

    def find(self, major: np.ndarray, minor: np.ndarray) -> tuple[np.ndarray, ...]:
        """(at, before, after): sorted positions of the occupied cell at each asked cell and of
        the nearest ones before and after it on its line; -1 where none."""
        keys = major * self.width + minor  # (N,)
        m = len(self.keys)
        if m == 0:
            none = np.full(len(keys), -1, dtype=np.int64)
            return none, none, none
        left = np.searchsorted(self.keys, keys, "left")  # (N,)
        right = np.searchsorted(self.keys, keys, "right")
        at = np.where(right > left, left, -1)
        before = left - 1
        before = np.where((before >= 0) & (self.major[np.maximum(before, 0)] == major), before, -1)
        after = np.where((right < m) & (self.major[np.minimum(right, m - 1)] == major), right, -1)
        return at, before, after


def _take(array: np.ndarray, positions: np.ndarray, missing: float = 0.0) -> np.ndarray:
    """`array[positions]` with `missing` where a position is -1."""
    if len(array) == 0:
        return np.full(positions.shape + array.shape[1:], missing, dtype=np.float64)
    out = array[np.maximum(positions, 0)].astype(np.float64)
    out[positions < 0] = missing
    return out


def layout_cues(occ: Occupied, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(N, len(LAYOUT_FEATURES)) float64 of the asked cells (`rows`, `cols`)."""
    n_wide = int(max(occ.cols.max(initial=0), cols.max(initial=0))) + 2
    n_tall = int(max(occ.rows.max(initial=0), rows.max(initial=0))) + 2
    by_row, by_col = _Line(occ.rows, occ.cols, n_wide), _Line(occ.cols, occ.rows, n_tall)
    at_r, left, right = by_row.find(rows, cols)  # (N,) sorted positions along rows
    _, up, down = by_col.find(cols, rows)
    kinds_r, kinds_c = occ.kinds[by_row.order], occ.kinds[by_col.order]  # (M,)
    out: list[np.ndarray] = []
    adjacent = []
    for pos, line, self_place, sorted_minor in (
        (up, by_col, rows, by_col.minor), (down, by_col, rows, by_col.minor),
        (left, by_row, cols, by_row.minor), (right, by_row, cols, by_row.minor),
    ):  # fmt: skip
        kinds = kinds_c if line is by_col else kinds_r
        gap = np.abs(_take(sorted_minor, pos, -1.0) - self_place)
        gap = np.where(pos < 0, GAP_NONE, np.minimum(gap, GAP_NONE - 1))
        nearest = _take(kinds, pos)
        adjacent.append((np.where(gap == 1, nearest, 0.0), nearest, gap))
    count = sum((a[0] > 0).astype(np.int64) for a in adjacent)  # (N,)
    out += [(count == k).astype(np.float64) for k in range(5)]
    out += [a[0] for a in adjacent] + [a[1] for a in adjacent] + [a[2] for a in adjacent]
    out += _lines(occ, rows, cols)
    out += _labels(occ, by_row, rows)
    out += _heading(occ, by_col, up, rows)
    out += _number_context(occ, at_r, by_row)
    return np.stack(out, axis=1) if out else np.zeros((len(rows), 0))


def _lines(occ: Occupied, rows: np.ndarray, cols: np.ndarray) -> list[np.ndarray]:
    """Occupied and number cells of each asked cell's row and column, and the number block."""
    numbers = occ.kinds == NUMBER
    size_r = int(max(occ.rows.max(initial=0), rows.max(initial=0))) + 1
    size_c = int(max(occ.cols.max(initial=0), cols.max(initial=0))) + 1
    row_cells = np.bincount(occ.rows, minlength=size_r)[rows].astype(np.float64)
    row_numbers = np.bincount(occ.rows[numbers], minlength=size_r)[rows].astype(np.float64)
    col_cells = np.bincount(occ.cols, minlength=size_c)[cols].astype(np.float64)
    col_numbers = np.bincount(occ.cols[numbers], minlength=size_c)[cols].astype(np.float64)
    if numbers.any():
        top, bottom = occ.rows[numbers].min(), occ.rows[numbers].max()
        first_col = occ.cols[numbers].min()
    else:  # no numbers: every cell lies above the block that is not there
        top, bottom, first_col = size_r, size_r, size_c
    return [row_cells, row_numbers, col_cells, col_numbers,
            row_numbers / np.maximum(row_cells, 1), col_numbers / np.maximum(col_cells, 1),
            (top - rows).astype(np.float64), (rows - bottom).astype(np.float64),
            (first_col - cols).astype(np.float64)]  # fmt: skip


def _labels(occ: Occupied, by_row: _Line, rows: np.ndarray) -> list[np.ndarray]:
    """The cues of each asked cell's row label, and how much deeper the next label lies."""
    if len(occ.kinds) == 0:
        return [np.zeros(len(rows)) for _ in range(6)]
    labelled, first = np.unique(by_row.major, return_index=True)  # (L,) rows, sorted positions
    cues = occ.label[by_row.order[first]]  # (L, 5)
    depth = cues[:, 3]
    deeper = np.append(depth[1:] - depth[:-1], 0.0)  # (L,) the next label's depth minus this
    at = np.searchsorted(labelled, rows)  # (N,)
    found = (at < len(labelled)) & (labelled[np.minimum(at, len(labelled) - 1)] == rows)
    at = np.where(found, at, -1)
    label = _take(cues, at)  # (N, 5)
    return [label[:, 0], label[:, 1], label[:, 2], label[:, 3], label[:, 4], _take(deeper, at)]


def _heading(occ: Occupied, by_col: _Line, up: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    """The nearest text cell above each asked cell in its column: its heading cues, distance."""
    is_text = occ.kinds[by_col.order] == TEXT  # (M,) in column order
    last_text = np.maximum.accumulate(np.where(is_text, np.arange(len(is_text)), -1)) if len(
        is_text) else np.zeros(0, np.int64)  # fmt: skip
    pos = _take(last_text, up, -1.0).astype(np.int64)  # (N,) the last text at or before `up`
    same = pos >= 0
    same[same] = by_col.major[pos[same]] == by_col.major[np.maximum(up[same], 0)]
    pos = np.where(same & (up >= 0), pos, -1)
    cues = _take(occ.heading[by_col.order], pos)  # (N, 2)
    gap = np.where(pos >= 0, rows - _take(by_col.minor, pos), GAP_NONE)
    return [cues[:, 0], cues[:, 1], np.minimum(gap, GAP_NONE).astype(np.float64)]


def _number_context(occ: Occupied, at_r: np.ndarray, by_row: _Line) -> list[np.ndarray]:
    """A number's share of its column's largest magnitude; whether it totals its neighbours;
    which run of its column and of its row it aggregates (`sums.aggregate_cues`)."""
    numbers = np.flatnonzero(occ.kinds == NUMBER)  # (K,) occupied indices
    magnitude = np.abs(occ.values)
    top = np.zeros(int(occ.cols.max(initial=0)) + 1)
    np.maximum.at(top, occ.cols[numbers], magnitude[numbers])
    share = np.where(occ.kinds == NUMBER, magnitude / np.maximum(top[occ.cols], 1e-300), 0.0)
    cues = np.zeros((len(occ.kinds), 4))
    v = occ.values[numbers]
    cues[numbers, 0], cues[numbers, 1] = sum_cues(occ.cols[numbers], occ.rows[numbers], v)
    cues[numbers, 2], cues[numbers, 3] = sum_cues(occ.rows[numbers], occ.cols[numbers], v)
    runs = np.zeros((len(occ.kinds), 2 * len(AGGREGATE_NAMES)))  # down its column, along its row
    runs[numbers, : len(AGGREGATE_NAMES)] = aggregate_cues(occ.cols[numbers], occ.rows[numbers], v)
    runs[numbers, len(AGGREGATE_NAMES) :] = aggregate_cues(occ.rows[numbers], occ.cols[numbers], v)
    at = np.where(at_r >= 0, by_row.order[np.maximum(at_r, 0)], -1)  # (N,) occupied index
    return ([_take(share, at)] + [_take(cues[:, j], at) for j in range(4)]
            + [_take(runs[:, j], at) for j in range(runs.shape[1])])  # fmt: skip
