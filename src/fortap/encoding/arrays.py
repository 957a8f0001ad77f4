"""`ExampleArrays`: one `Example` held as two arrays, the form the pretraining pipeline builds,
edits and collates without a Python object per token.

Letters: T tokens, K integer columns (17), F format features (11), C cells.

`ints` (T, K) holds every integer per-token field side by side (`COLUMNS` names each field's
columns); `formats` (T, F) the format vectors. `starts` gives the first token of every cell id
0..C (cell 0 is [CLS] + context): cells are contiguous and numbered in sequence order, as
`serialize` and the objectives' edits lay them out, so a cell's tokens are
`starts[k]:starts[k + 1]` (the last one runs to T). `targets`, `meta`, `inputs` and
`cell_coords` are the Example's own.

`from_example` and `to_example` are an exact round trip (formats keep their dtype: float32
from shards, float64 from Python floats); both share `targets`, `meta` and `inputs` with
their input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fortap.encoding.example import FORMAT_DIM, TREE_LEVELS, Example

TOKEN = 0  # column of the token id
NUMBERS = slice(1, 5)  # magnitude, precision, first and last digit ids
IN_CELL_POS = 5
ROW = 6
COL = 7
TOP = slice(8, 8 + TREE_LEVELS)
LEFT = slice(8 + TREE_LEVELS, 8 + 2 * TREE_LEVELS)
CELL = 8 + 2 * TREE_LEVELS  # column of the cell id
POSITION = slice(ROW, LEFT.stop)  # a token's place: row, column and both tree coordinates
WIDTH = CELL + 1  # K
COLUMNS = {  # Example field -> its columns in `ints`
    "token_ids": TOKEN,
    "numbers": NUMBERS,
    "in_cell_pos": IN_CELL_POS,
    "rows": ROW,
    "cols": COL,
    "top_coords": TOP,
    "left_coords": LEFT,
    "cell_ids": CELL,
}
INT_DTYPE = np.int32  # every id, coordinate and feature fits; batches widen to int64


@dataclass(eq=False)
class ExampleArrays:
    """One serialised table as arrays (see module doc). Compared by identity: the arrays have
    no single truth value."""

    ints: np.ndarray  # (T, K) int32
    formats: np.ndarray  # (T, F) float32 or float64
    starts: list[int]  # (C + 1,) first token of cells 0..C
    cell_coords: list[tuple[int, int]]  # (C,) table (row, col) of cell k = index + 1
    targets: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)  # a task's per-cell input features
    memo: dict[str, Any] = field(default_factory=dict, repr=False)  # what target builders
    # derive from this example alone, kept across visits (`fortap.objectives.draft.Draft`)

    def __len__(self) -> int:
        return len(self.ints)

    @classmethod
    def from_example(cls, example: Example) -> ExampleArrays:
        T = len(example)
        ints = np.empty((T, WIDTH), dtype=INT_DTYPE)  # (T, K)
        for name, columns in COLUMNS.items():
            ints[:, columns] = np.asarray(getattr(example, name), dtype=INT_DTYPE)
        formats = np.asarray(example.formats, dtype=np.float64).reshape(T, FORMAT_DIM)  # (T, F)
        return cls(ints, formats, cell_starts(ints[:, CELL]), list(example.cell_coords),
                   example.targets, example.meta, example.inputs)  # fmt: skip

    def to_example(self) -> Example:
        rows = lambda columns: list(map(tuple, self.ints[:, columns].tolist()))  # noqa: E731
        return Example(
            token_ids=self.ints[:, TOKEN].tolist(),
            numbers=rows(NUMBERS),
            in_cell_pos=self.ints[:, IN_CELL_POS].tolist(),
            rows=self.ints[:, ROW].tolist(),
            cols=self.ints[:, COL].tolist(),
            top_coords=rows(TOP),
            left_coords=rows(LEFT),
            formats=list(map(tuple, self.formats.tolist())),
            cell_ids=self.ints[:, CELL].tolist(),
            cell_coords=list(self.cell_coords),
            targets=self.targets,
            meta=self.meta,
            inputs=self.inputs,
        )


def cell_starts(cell_ids: np.ndarray) -> list[int]:
    """First token of each cell id 0..C; raises ValueError unless the cells are contiguous and
    numbered 0, 1, 2, ... along the sequence (the layout every `ExampleArrays` assumes)."""
    if len(cell_ids) == 0 or cell_ids[0] != 0:
        raise ValueError("ExampleArrays: the sequence must start with cell 0 ([CLS])")
    starts = np.concatenate([[0], np.flatnonzero(np.diff(cell_ids)) + 1])  # (C + 1,)
    if not np.array_equal(cell_ids[starts], np.arange(len(starts))):
        shown = cell_ids[starts][:8].tolist()
        raise ValueError(f"ExampleArrays: cells must be contiguous and in order, got {shown}...")
    return starts.tolist()
