"""Windows of a literal sheet: the exact column bands and row windows, each labelled cell scored
once (from the first window showing it), and a cell without a label never scored."""

from __future__ import annotations

from fortap.encoding.selection import chunk_cols, chunk_rows, chunk_table
from fortap.encoding.serialize import SerializeConfig
from fortap.tasks.cell_types.examples import FALLBACK, owners, score_sheet, table_windows
from fortap.tasks.cell_types.labels import NO_LABEL

from .sheets import LABELS, grid_table

CFG = SerializeConfig(max_seq_len=13)  # [CLS] + 12 tokens = 6 cells of 2 tokens


def test_bands_repeat_the_left_header_column(tokenizer):
    # header x y + row p a b = 10 tokens fit; adding column 3 needs 6 + 8 = 14
    assert chunk_cols(grid_table(), tokenizer, CFG, skip_empty=True) == [[0, 1, 2], [0, 3]]


def test_exact_windows_repeat_the_top_headers_in_each_band(tokenizer):
    windows = chunk_table(grid_table(), tokenizer, CFG, skip_empty=True)
    assert windows == [
        [(0, 1), (0, 2), (1, 0), (1, 1), (1, 2)],
        [(0, 1), (0, 2), (2, 0), (2, 1)],  # (2, 2) is empty
        [(0, 1), (0, 2), (3, 0), (3, 1), (3, 2)],
        [(0, 3), (1, 0), (1, 3), (2, 0), (2, 3)],
        [(0, 3), (3, 0), (3, 3)],
    ]


def test_a_table_that_fits_in_width_gives_chunk_rows_windows(tokenizer):
    wide = SerializeConfig(max_seq_len=17)  # 8 cells: header (3) + one full row (4) fit
    table = grid_table()
    assert chunk_cols(table, tokenizer, wide, skip_empty=True) == [[0, 1, 2, 3]]
    assert chunk_table(table, tokenizer, wide, skip_empty=True) == chunk_rows(
        table, tokenizer, wide, skip_empty=True
    )


def test_every_labelled_cell_is_scored_once_from_its_first_window(tokenizer):
    windows = table_windows(grid_table(), tokenizer, CFG, LABELS)
    assert all(not ex.meta["dropped_cells"] for ex in windows)
    predicted = [[100 * w + k for k in range(len(ex.cell_coords))] for w, ex in enumerate(windows)]
    scored = score_sheet(LABELS, windows, predicted)
    labelled = [(r, c) for r, row in enumerate(LABELS) for c, v in enumerate(row) if v != NO_LABEL]
    assert scored.cells == labelled  # each once, row-major
    assert scored.unshown == 0
    by_cell = dict(zip(scored.cells, scored.predicted, strict=True))
    assert by_cell[(0, 1)] == 0  # header shown in windows 0, 1, 2: window 0's cell 0
    assert by_cell[(1, 0)] == 2  # left header in bands 1 and 2: band 1's first window
    assert by_cell[(2, 0)] == 102 and by_cell[(2, 3)] == 304 and by_cell[(0, 3)] == 300


def test_cells_without_a_label_are_never_scored_nor_trained(tokenizer):
    windows = table_windows(grid_table(), tokenizer, CFG, LABELS)
    assert (3, 3) in owners(windows)  # shown ("h") ...
    scored = score_sheet(LABELS, windows, [[0] * len(ex.cell_coords) for ex in windows])
    assert (3, 3) not in scored.cells and (2, 2) not in scored.cells and (0, 0) not in scored.cells
    last = windows[-1]
    assert last.targets["cell_types"]["labels"][last.cell_coords.index((3, 3))] == NO_LABEL


def test_a_labelled_cell_no_window_shows_is_scored_as_the_fallback(tokenizer):
    windows = table_windows(grid_table(), tokenizer, CFG, LABELS)[:1]  # only the first window
    scored = score_sheet(LABELS, windows, [[5] * len(windows[0].cell_coords)])
    assert scored.unshown == len(scored.cells) - 5
    assert scored.predicted.count(FALLBACK) == scored.unshown
