"""Examples as arrays: an exact round trip, the layout they assume, the same Batch as
`collate`, and shards decoded column by column into the same examples."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fortap.encoding.arrays import CELL, TOKEN, WIDTH, ExampleArrays, cell_starts
from fortap.encoding.collate import collate, collate_arrays
from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.encoding.serialize import serialize
from fortap.encoding.shards import read_shard, read_shard_arrays, write_shard

FIELDS = ("token_ids", "numbers", "in_cell_pos", "rows", "cols", "top_coords", "left_coords",
          "formats", "cell_ids", "cell_coords", "targets", "meta", "inputs")  # fmt: skip


@pytest.fixture
def examples(table, tokenizer):
    long = serialize(table, tokenizer, context="Sales by region")  # 29 tokens, 12 cells
    long.targets[FORMULA_KEY] = FormulaTargets(cell=3, mode="tag")
    short = serialize(table, tokenizer, cells=[(0, 3), (2, 3)])
    return [long, short]


def test_round_trip_is_exact(examples):
    for example in examples:
        arrays = ExampleArrays.from_example(example)
        assert arrays.ints.shape == (len(example), WIDTH)
        assert arrays.ints[:, TOKEN].tolist() == example.token_ids
        back = arrays.to_example()
        for name in FIELDS:
            assert getattr(back, name) == getattr(example, name), name


def test_cells_start_where_their_ids_change(examples):
    arrays = ExampleArrays.from_example(examples[0])
    assert arrays.starts[:3] == [0, 4, 6] and len(arrays.starts) == 13
    assert arrays.ints[arrays.starts, CELL].tolist() == list(range(13))
    with pytest.raises(ValueError, match="contiguous and in order"):
        cell_starts(np.array([0, 0, 2, 2, 1]))
    with pytest.raises(ValueError, match="start with cell 0"):
        cell_starts(np.array([1, 1]))


def test_collate_arrays_makes_the_batch_collate_makes(examples):
    want = collate(examples)
    got = collate_arrays([ExampleArrays.from_example(x) for x in examples])
    for name in ("token_ids", "numbers", "in_cell_pos", "rows", "cols", "top_coords",
                 "left_coords", "formats", "cell_ids", "token_mask", "sep_index", "cell_mask"):  # fmt: skip
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and torch.equal(a, b), name
    assert got.meta == want.meta and got.targets == want.targets


def test_shards_decode_into_the_same_examples(tmp_path, examples):
    path = tmp_path / "part-00000.parquet"
    write_shard(path, examples)
    for arrays, example in zip(read_shard_arrays(path), read_shard(path), strict=True):
        assert arrays.formats.dtype == np.float32  # as stored
        back = arrays.to_example()
        for name in FIELDS:
            assert getattr(back, name) == getattr(example, name), name
