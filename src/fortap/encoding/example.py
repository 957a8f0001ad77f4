"""Model input: one serialised table (`Example`) and many padded together (`Batch`).

Letters: T tokens, C cells, L tree levels (4), F format features (11), B batch.
An `Example` holds plain Python lists (cheap to build, to store in Parquet, to compare in
tests); `collate` turns a list of them into a `Batch` of tensors.

Token layout: `[CLS] context… [SEP] cell-1 tokens… [SEP] cell-2 tokens…` with at most
`max_cell_tokens` tokens per cell including its `[SEP]`. Cell 0 is the `[CLS]`+context
segment; cells 1..C are table cells in serialisation order.

`meta` (JSON-friendly, never tensors) as `serialize` fills it: `book`, `sheet`, `region` (A1),
`dropped_cells` ([row, col] left out to fit `max_seq_len`), `cut_cells` (cells whose tokens were
cut at `max_cell_tokens`), `input_modes` ([row, col, mode] of every formula or tagged cell, the
mode actually shown), `formula_fallbacks` ([row, col, reason] of "tokens" cells shown as the
tag), `positions_clipped` (a row or column >= NULL_POS was clipped to NULL_POS - 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NULL_POS = 256  # row/column index of [CLS], context tokens and padding (the reference's row_size)
TREE_LEVELS = 4
FORMAT_DIM = 11
TOKEN_FIELDS = (  # the per-token lists of an Example, all of length T
    "token_ids",
    "numbers",
    "in_cell_pos",
    "rows",
    "cols",
    "top_coords",
    "left_coords",
    "formats",
    "cell_ids",
)


@dataclass
class Example:
    """One serialised table. Per-token lists all have length T."""

    token_ids: list[int]  # (T,) WordPiece ids over the MiniLM vocab + our added tokens
    numbers: list[tuple[int, int, int, int]]  # (T, 4) magnitude, precision, first, last digit ids
    in_cell_pos: list[int]  # (T,) 0 for a cell's [SEP], 1.. for its tokens; 0 for [CLS]/context
    rows: list[int]  # (T,) table row of the token's cell, NULL_POS outside the table
    cols: list[int]  # (T,) table column, NULL_POS outside the table
    top_coords: list[tuple[int, int, int, int]]  # (T, L) top-tree sibling index per level, -1 null
    left_coords: list[tuple[int, int, int, int]]  # (T, L) left-tree sibling index, -1 null
    formats: list[tuple[float, ...]]  # (T, F) format vector in [0, 1]
    cell_ids: list[int]  # (T,) 0 for [CLS]/context, k for the k-th serialised cell (1-based)
    cell_coords: list[tuple[int, int]]  # (C,) table (row, col) of serialised cell k = index + 1
    targets: dict[str, Any] = field(default_factory=dict)  # keyed by objective / task name
    meta: dict[str, Any] = field(default_factory=dict)  # book, sheet, region, ... (see above)
    inputs: dict[str, Any] = field(default_factory=dict)  # a task's own per-cell input features,
    # keyed by task name: (C, F) numbers per serialised cell (cell types' extras, QA's matches)

    def __len__(self) -> int:
        return len(self.token_ids)

    def append_token(
        self,
        token_id: int,
        numbers: tuple[int, ...],
        pos: int,
        row: int,
        col: int,
        top: tuple[int, ...],
        left: tuple[int, ...],
        fmt: tuple[float, ...],
        cell_id: int,
    ) -> None:
        """Append one token with all its side inputs, keeping the per-token lists in step."""
        self.token_ids.append(token_id)
        self.numbers.append(tuple(numbers))
        self.in_cell_pos.append(pos)
        self.rows.append(row)
        self.cols.append(col)
        self.top_coords.append(top)
        self.left_coords.append(left)
        self.formats.append(fmt)
        self.cell_ids.append(cell_id)


@dataclass
class Batch:
    """Padded tensors of many Examples (torch tensors; pad token id 0).

    token_ids      (B, T) long
    numbers        (B, T, 4) long     pad/non-number = the "not a number" id
    in_cell_pos    (B, T) long
    rows, cols     (B, T) long        NULL_POS outside the table and on padding
    top_coords     (B, T, L) long     -1 = null level
    left_coords    (B, T, L) long
    formats        (B, T, F) float
    cell_ids       (B, T) long        -1 on padding
    token_mask     (B, T) bool        True on real tokens
    sep_index      (B, C) long        token index of each cell's [SEP]; 0 on padded cells
    cell_mask      (B, C) bool        True on real cells
    targets        dict[str, Tensor | list] built by each objective's collate hook
    inputs         dict[str, Tensor]  (B, C, F) float per task: its own per-cell input features
    """

    token_ids: Any
    numbers: Any
    in_cell_pos: Any
    rows: Any
    cols: Any
    top_coords: Any
    left_coords: Any
    formats: Any
    cell_ids: Any
    token_mask: Any
    sep_index: Any
    cell_mask: Any
    targets: dict[str, Any] = field(default_factory=dict)
    meta: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)  # task name -> (B, C, F) float, 0 on
    # padded cells (the Examples' `inputs`)

    def to(self, device) -> Batch:
        moved = {
            name: (value.to(device) if hasattr(value, "to") else value)
            for name, value in self.__dict__.items()
            if name not in ("targets", "meta", "inputs")
        }
        return Batch(**moved, targets=_moved(self.targets, device), meta=self.meta,
                     inputs=_moved(self.inputs, device))  # fmt: skip


def _moved(value: Any, device) -> Any:
    """`value` with every tensor in it (through dicts, lists and tuples) on `device`."""
    if hasattr(value, "to") and not isinstance(value, (dict, list, tuple)):
        return value.to(device)
    if isinstance(value, dict):
        return {k: _moved(v, device) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_moved(v, device) for v in value)
    return value
