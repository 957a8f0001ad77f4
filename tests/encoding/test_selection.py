"""Long tables: header + target row/column selection, and row windows with repeated headers."""

from __future__ import annotations

import pytest

from fortap.encoding.selection import chunk_rows, select_cells
from fortap.encoding.serialize import SerializeConfig, serialize
from fortap.sheet.model import Cell, Region
from fortap.table.model import Table


def grid_table(n_rows: int, n_cols: int, header_rows: int = 1, header_cols: int = 1) -> Table:
    def cell(r: int, c: int) -> Cell:
        if r < header_rows:
            return Cell(f"h{c}", "text")
        if c < header_cols:
            return Cell(f"r{r}", "text")
        return Cell(float(r * 10 + c), "number") if (r + c) % 3 else Cell()

    cells = tuple(tuple(cell(r, c) for c in range(n_cols)) for r in range(n_rows))
    return Table(
        "g.xlsx", "S", Region(0, 0, n_rows - 1, n_cols - 1), cells, (), header_rows, header_cols
    )


def test_select_cells_is_headers_plus_target_row_and_column(table):
    # non-empty headers: Region, Sales 2019, Total, Jan, Feb, North; row 2 and column 3 in full
    assert select_cells(table, (2, 3)) == [
        (0, 0),
        (0, 1),
        (0, 3),
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
    ]
    assert (1, 0) in select_cells(table, (2, 3), include_empty_headers=True)


def test_select_cells_on_a_bigger_grid_keeps_empty_cells_on_the_line():
    t = grid_table(6, 5)
    chosen = select_cells(t, (4, 3))
    assert chosen == sorted(
        {(0, c) for c in range(5)}
        | {(r, 0) for r in range(1, 6)}
        | {(4, c) for c in range(5)}
        | {(r, 3) for r in range(6)}
    )
    assert t.cell(3, 3).is_empty and (3, 3) in chosen


def test_select_cells_rejects_a_target_outside(table):
    with pytest.raises(ValueError, match=r"target \(5, 0\) lies outside"):
        select_cells(table, (5, 0))


def test_chunk_rows_repeats_headers_and_covers_every_data_row_once(tokenizer):
    t = grid_table(60, 6)
    cfg = SerializeConfig(max_seq_len=64)
    windows = chunk_rows(t, tokenizer, cfg, context="grid")
    header = [(0, c) for c in range(6)]
    assert len(windows) > 1
    data_rows = []
    for window in windows:
        assert window[:6] == header
        ex = serialize(t, tokenizer, cfg, context="grid", cells=window)
        assert len(ex) <= 64
        assert ex.meta["dropped_cells"] == []
        data_rows += sorted({r for r, _ in window[6:]})
    assert data_rows == list(range(1, 60))


def test_chunk_rows_of_a_short_table_is_one_window(table, tokenizer):
    assert chunk_rows(table, tokenizer) == [[(r, c) for r in range(3) for c in range(4)]]


def test_chunk_rows_can_skip_empty_cells(tokenizer):
    t = grid_table(10, 4)
    windows = chunk_rows(t, tokenizer, skip_empty=True)
    assert all(not t.cell(r, c).is_empty for w in windows for r, c in w)
