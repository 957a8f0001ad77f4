"""Many `Example`s -> one padded `Batch` of tensors (shapes and pad values in `Batch`'s docstring).

Letters: B batch, T tokens (longest Example rounded up to `pad_to_multiple`), C cells (most
cells of any Example), L tree levels, F format features, K integer columns of `ExampleArrays`.
`collate_arrays` makes the same `Batch` from examples held as arrays (the pretraining stream's).

Targets are not ours to pad: each objective or task registers a *target collator*
`(values, batch) -> Any` under its name, called with the Examples' `targets[name]` (None where an
Example has none) and the batch built so far. Targets without a collator stay Python lists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch

from fortap.encoding.arrays import COLUMNS, WIDTH, ExampleArrays
from fortap.encoding.example import FORMAT_DIM, NULL_POS, TOKEN_FIELDS, TREE_LEVELS, Batch, Example
from fortap.encoding.formats import DEFAULT_FORMAT
from fortap.text.numbers import NOT_A_NUMBER
from fortap.text.tokenizer import PAD_ID

TargetCollator = Callable[[list[Any], Batch], Any]


def collate(
    examples: Sequence[Example],
    pad_to_multiple: int = 8,
    target_collators: Mapping[str, TargetCollator] | None = None,
) -> Batch:
    """Pad `examples` to a common length and stack them into a `Batch`."""
    if not examples:
        raise ValueError("collate: no examples")
    if pad_to_multiple < 1:
        raise ValueError(f"collate: pad_to_multiple must be >= 1, got {pad_to_multiple}")
    n = len(examples)
    longest = max(len(ex) for ex in examples)
    t = -(-longest // pad_to_multiple) * pad_to_multiple
    c = max(1, max(len(ex.cell_coords) for ex in examples))

    token_ids = np.full((n, t), PAD_ID, dtype=np.int64)  # (B, T)
    numbers = np.full((n, t, 4), NOT_A_NUMBER, dtype=np.int64)  # (B, T, 4)
    in_cell_pos = np.zeros((n, t), dtype=np.int64)  # (B, T)
    rows = np.full((n, t), NULL_POS, dtype=np.int64)  # (B, T)
    cols = np.full((n, t), NULL_POS, dtype=np.int64)  # (B, T)
    top = np.full((n, t, TREE_LEVELS), -1, dtype=np.int64)  # (B, T, L)
    left = np.full((n, t, TREE_LEVELS), -1, dtype=np.int64)  # (B, T, L)
    formats = np.tile(np.asarray(DEFAULT_FORMAT, dtype=np.float32), (n, t, 1))  # (B, T, F)
    cell_ids = np.full((n, t), -1, dtype=np.int64)  # (B, T)
    token_mask = np.zeros((n, t), dtype=bool)  # (B, T)
    sep_index = np.zeros((n, c), dtype=np.int64)  # (B, C)
    cell_mask = np.zeros((n, c), dtype=bool)  # (B, C)

    for b, ex in enumerate(examples):
        k = len(ex)
        _check(ex, b)
        token_ids[b, :k] = ex.token_ids
        numbers[b, :k] = ex.numbers
        in_cell_pos[b, :k] = ex.in_cell_pos
        rows[b, :k] = ex.rows
        cols[b, :k] = ex.cols
        top[b, :k] = ex.top_coords
        left[b, :k] = ex.left_coords
        formats[b, :k] = ex.formats
        ids = np.asarray(ex.cell_ids, dtype=np.int64)
        cell_ids[b, :k] = ids
        token_mask[b, :k] = True
        n_cells = len(ex.cell_coords)
        sep_index[b, :n_cells] = _first_tokens(ids, n_cells, b)
        cell_mask[b, :n_cells] = True

    batch = Batch(
        token_ids=torch.from_numpy(token_ids),
        numbers=torch.from_numpy(numbers),
        in_cell_pos=torch.from_numpy(in_cell_pos),
        rows=torch.from_numpy(rows),
        cols=torch.from_numpy(cols),
        top_coords=torch.from_numpy(top),
        left_coords=torch.from_numpy(left),
        formats=torch.from_numpy(formats),
        cell_ids=torch.from_numpy(cell_ids),
        token_mask=torch.from_numpy(token_mask),
        sep_index=torch.from_numpy(sep_index),
        cell_mask=torch.from_numpy(cell_mask),
        meta=[ex.meta for ex in examples],
    )
    return _with_targets(batch, examples, target_collators)


def collate_arrays(
    examples: Sequence[ExampleArrays],
    pad_to_multiple: int = 8,
    target_collators: Mapping[str, TargetCollator] | None = None,
) -> Batch:
    """`collate` of examples held as arrays (`ExampleArrays`): the same `Batch`, one copy per
    example instead of one per field and token."""
    if not examples:
        raise ValueError("collate_arrays: no examples")
    n = len(examples)
    lengths = np.array([len(ex) for ex in examples])  # (B,)
    t = -(-int(lengths.max()) // pad_to_multiple) * pad_to_multiple
    c = max(1, max(len(ex.starts) - 1 for ex in examples))
    ints = np.empty((n, t, WIDTH), dtype=np.int64)  # (B, T, K)
    ints[:] = _PAD_ROW
    formats = np.empty((n, t, FORMAT_DIM), dtype=np.float32)  # (B, T, F)
    formats[:] = DEFAULT_FORMAT
    sep_index = np.zeros((n, c), dtype=np.int64)  # (B, C)
    cell_mask = np.zeros((n, c), dtype=bool)  # (B, C)
    for b, ex in enumerate(examples):
        ints[b, : lengths[b]] = ex.ints
        formats[b, : lengths[b]] = ex.formats
        cells = len(ex.starts) - 1
        sep_index[b, :cells] = ex.starts[1:]
        cell_mask[b, :cells] = True
    column = lambda cols: torch.from_numpy(np.ascontiguousarray(ints[:, :, cols]))  # noqa: E731
    batch = Batch(
        **{name: column(columns) for name, columns in COLUMNS.items()},
        formats=torch.from_numpy(formats),
        token_mask=torch.from_numpy(np.arange(t) < lengths[:, None]),  # (B, T)
        sep_index=torch.from_numpy(sep_index),
        cell_mask=torch.from_numpy(cell_mask),
        meta=[ex.meta for ex in examples],
    )
    return _with_targets(batch, examples, target_collators)


def _pad_row() -> np.ndarray:
    """The (K,) values of a padding token in `ExampleArrays.ints` (see `Batch`)."""
    row = np.zeros(WIDTH, dtype=np.int64)
    row[COLUMNS["token_ids"]] = PAD_ID
    row[COLUMNS["numbers"]] = NOT_A_NUMBER
    row[COLUMNS["rows"]] = row[COLUMNS["cols"]] = NULL_POS
    row[COLUMNS["top_coords"]] = row[COLUMNS["left_coords"]] = row[COLUMNS["cell_ids"]] = -1
    return row


_PAD_ROW = _pad_row()


def _with_targets(batch: Batch, examples, target_collators) -> Batch:
    """`batch` with every target name of `examples` collated by its collator (or as a list),
    and every task's per-cell inputs padded to (B, C, F)."""
    for name in sorted({name for ex in examples for name in getattr(ex, "inputs", {})}):
        batch.inputs[name] = _cell_features(
            [getattr(ex, "inputs", {}).get(name) for ex in examples], batch
        )
    names = {name for ex in examples for name in ex.targets}
    collators = target_collators or {}
    for name in sorted(names | set(collators)):
        values = [ex.targets.get(name) for ex in examples]
        batch.targets[name] = collators[name](values, batch) if name in collators else values
    return batch


def _cell_features(values: list, batch: Batch) -> torch.Tensor:
    """Per-cell feature rows of each example, (C_b, F) each, padded with 0 to (B, C, F)."""
    n, c = batch.cell_mask.shape
    width = max((len(row) for value in values if value for row in value), default=0)
    out = torch.zeros(n, c, width)  # (B, C, F)
    for b, value in enumerate(values):
        if value:
            out[b, : len(value)] = torch.tensor(value, dtype=torch.float32).reshape(len(value), -1)
    return out


def _check(ex: Example, b: int) -> None:
    """Every per-token list has one entry per token (a broken Example names its index)."""
    k = len(ex)
    for name in TOKEN_FIELDS[1:]:
        if len(getattr(ex, name)) != k:
            raise ValueError(
                f"collate: example {b} has {len(getattr(ex, name))} {name} for {k} tokens"
            )
    if ex.formats and len(ex.formats[0]) != FORMAT_DIM:
        raise ValueError(
            f"collate: example {b} has {len(ex.formats[0])}-dim formats, expected {FORMAT_DIM}"
        )


def _first_tokens(cell_ids: np.ndarray, n_cells: int, b: int) -> np.ndarray:
    """Token index of each cell's first token (its [SEP]), cells 1..n_cells in order."""
    ids, first = np.unique(cell_ids, return_index=True)
    first = first[ids > 0]
    if not np.array_equal(ids[ids > 0], np.arange(1, n_cells + 1)):
        raise ValueError(
            f"collate: example {b} has cell ids {ids[ids > 0].tolist()[:8]}..., "
            f"expected 1..{n_cells} (one per cell_coords entry)"
        )
    return first
