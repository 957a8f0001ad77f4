"""Which cells of a long table go into one sequence.

Three strategies, all returning cells for `serialize(..., cells=...)`:

- `select_cells(table, target)`: the paper's input for pretraining and formula prediction,
  the header cells plus every cell on the target's row and column (89 % of formulas reference
  only those). Empty header cells are left out; empty cells on the row and column stay, since a
  formula may reference them.
- `chunk_rows(table, tokenizer, cfg)`: the whole table cut into windows of consecutive data
  rows, each window repeating the top-header rows, sized so each window fits `max_seq_len`.
- `chunk_table(table, tokenizer, cfg)`: the same over column bands (`chunk_cols`): a table
  whose widest row does not fit beside the top headers is first cut into bands of consecutive
  columns, each band repeating the left-header columns, then each band into row windows. A
  table that fits in width gives exactly `chunk_rows`'s windows. Windows come band by band,
  left to right, and top to bottom within a band, so the top-header cells of a band are first
  shown in its first window and the left-header cells in the first band.
"""

from __future__ import annotations

from collections.abc import Sequence

from fortap.encoding.serialize import RC, SerializeConfig, cell_block
from fortap.table.model import Table
from fortap.text.tokenizer import Tokenizer


def is_header(table: Table, row: int, col: int) -> bool:
    """True for a cell in a top-header row or a left-header column."""
    return row < table.top_header_rows or col < table.left_header_cols


def select_cells(table: Table, target: RC, include_empty_headers: bool = False) -> list[RC]:
    """Header cells and the cells on `target`'s row and column, in row-major order."""
    tr, tc = target
    if not (0 <= tr < table.n_rows and 0 <= tc < table.n_cols):
        raise ValueError(
            f"select_cells: target {target} lies outside the {table.n_rows}x{table.n_cols} table "
            f"({table.sheet}!{table.region.a1} of {table.book})"
        )
    chosen = {(tr, c) for c in range(table.n_cols)} | {(r, tc) for r in range(table.n_rows)}
    for r in range(table.n_rows):
        for c in range(table.n_cols):
            if is_header(table, r, c) and (include_empty_headers or not table.cell(r, c).is_empty):
                chosen.add((r, c))
    return sorted(chosen)


def chunk_rows(
    table: Table,
    tokenizer: Tokenizer,
    cfg: SerializeConfig | None = None,
    context: str | None = None,
    skip_empty: bool = False,
    cols: Sequence[int] | None = None,
) -> list[list[RC]]:
    """Windows of consecutive data rows, each with the top-header rows in front.

    Each window's cells fit `cfg.max_seq_len` after [CLS] and `context`, unless one data row
    with the headers is already too long (then the window holds that one row and `serialize`
    drops cells from its end). `skip_empty` leaves empty cells out (sparse sheets); `cols`
    (default all) keeps only those columns.
    """
    cfg = cfg or SerializeConfig()
    cost = _Costs(table, tokenizer, cfg, skip_empty)
    cols = range(table.n_cols) if cols is None else cols
    return _row_windows(table, cost, _budget(tokenizer, cfg, context), cols)


def _row_windows(table: Table, cost: _Costs, room: int, cols: Sequence[int]) -> list[list[RC]]:
    """`chunk_rows` over `cols`, with the cell costs and the room for cells given."""
    n_header = min(table.top_header_rows, table.n_rows)
    header = [rc for r in range(n_header) for rc in cost.row(r, cols)]
    room -= cost(header)
    windows: list[list[RC]] = []
    current: list[RC] = []
    used = 0
    for r in range(n_header, table.n_rows):
        cells = cost.row(r, cols)
        need = cost(cells)
        if current and used + need > room:
            windows.append(header + current)
            current, used = [], 0
        current += cells
        used += need
    if current or not windows:
        windows.append(header + current)
    return windows


def chunk_cols(
    table: Table,
    tokenizer: Tokenizer,
    cfg: SerializeConfig | None = None,
    context: str | None = None,
    skip_empty: bool = False,
) -> list[list[int]]:
    """Bands of columns, each the left-header columns then consecutive other columns, as many
    as fit: the band's top-header cells plus its longest data row within `cfg.max_seq_len`
    (a column that does not fit even alone gets a band of its own). One band of all columns
    when the whole width fits."""
    cfg = cfg or SerializeConfig()
    cost = _Costs(table, tokenizer, cfg, skip_empty)
    return _bands(table, cost, _budget(tokenizer, cfg, context))


def _bands(table: Table, cost: _Costs, room: int) -> list[list[int]]:
    """`chunk_cols`, with the cell costs and the room for cells given."""
    n_left = min(table.left_header_cols, table.n_cols)
    n_header = min(table.top_header_rows, table.n_rows)
    left = list(range(n_left))

    def need(cols: list[int]) -> int:
        header = sum(cost(cost.row(r, cols)) for r in range(n_header))
        rows = (cost(cost.row(r, cols)) for r in range(n_header, table.n_rows))
        return header + max(rows, default=0)

    bands: list[list[int]] = []
    current: list[int] = []
    for c in range(n_left, table.n_cols):
        if current and need(left + current + [c]) > room:
            bands.append(left + current)
            current = []
        current.append(c)
    if current or not bands:
        bands.append(left + current)
    return bands


def chunk_table(
    table: Table,
    tokenizer: Tokenizer,
    cfg: SerializeConfig | None = None,
    context: str | None = None,
    skip_empty: bool = False,
) -> list[list[RC]]:
    """Row windows of every column band (`chunk_cols`), band by band (see module doc)."""
    cfg = cfg or SerializeConfig()
    cost = _Costs(table, tokenizer, cfg, skip_empty)  # each cell tokenised once for all bands
    room = _budget(tokenizer, cfg, context)
    return [w for band in _bands(table, cost, room) for w in _row_windows(table, cost, room, band)]


class _Costs:
    """Tokens of each cell's block (computed once), and the cells of a row that a window takes."""

    def __init__(self, table: Table, tokenizer: Tokenizer, cfg: SerializeConfig, skip_empty: bool):
        self.table, self.tokenizer, self.cfg, self.skip_empty = table, tokenizer, cfg, skip_empty
        self.known: dict[RC, int] = {}

    def row(self, r: int, cols: Sequence[int]) -> list[RC]:
        cell = self.table.cell
        return [(r, c) for c in cols if not (self.skip_empty and cell(r, c).is_empty)]

    def __call__(self, cells: list[RC]) -> int:
        for rc in cells:
            if rc not in self.known:
                self.known[rc] = len(cell_block(self.table, self.tokenizer, self.cfg, rc))
        return sum(self.known[rc] for rc in cells)


def _budget(tokenizer: Tokenizer, cfg: SerializeConfig, context: str | None) -> int:
    """Tokens left for cells after [CLS] and the context."""
    context_len = len(tokenizer.encode_cell(context)[: cfg.max_context_tokens]) if context else 0
    return cfg.max_seq_len - 1 - context_len
