"""Which cells of a long table go into one sequence.

Two strategies, both returning cells for `serialize(..., cells=...)`:

- `select_cells(table, target)`: the paper's input for pretraining and formula prediction,
  the header cells plus every cell on the target's row and column (89 % of formulas reference
  only those). Empty header cells are left out; empty cells on the row and column stay, since a
  formula may reference them.
- `chunk_rows(table, tokenizer, cfg)`: the whole table cut into windows of consecutive data
  rows, each window repeating the top-header rows, sized so each window fits `max_seq_len`.
"""

from __future__ import annotations

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
) -> list[list[RC]]:
    """Windows of consecutive data rows, each with the top-header rows in front.

    Each window's cells fit `cfg.max_seq_len` after [CLS] and `context`, unless one data row
    with the headers is already too long (then the window holds that one row and `serialize`
    drops cells from its end). `skip_empty` leaves empty cells out (sparse sheets).
    """
    cfg = cfg or SerializeConfig()
    context_len = len(tokenizer.encode_cell(context)[: cfg.max_context_tokens]) if context else 0
    budget = cfg.max_seq_len - 1 - context_len
    n_header = min(table.top_header_rows, table.n_rows)

    def row_cells(r: int) -> list[RC]:
        return [
            (r, c) for c in range(table.n_cols) if not (skip_empty and table.cell(r, c).is_empty)
        ]

    def cost(cells: list[RC]) -> int:
        return sum(len(cell_block(table, tokenizer, cfg, rc)) for rc in cells)

    header = [rc for r in range(n_header) for rc in row_cells(r)]
    room = budget - cost(header)
    windows: list[list[RC]] = []
    current: list[RC] = []
    used = 0
    for r in range(n_header, table.n_rows):
        cells = row_cells(r)
        need = cost(cells)
        if current and used + need > room:
            windows.append(header + current)
            current, used = [], 0
        current += cells
        used += need
    if current or not windows:
        windows.append(header + current)
    return windows
