"""Parquet shards: an exact round trip, atomic writes, the same bytes for the same Examples."""

from __future__ import annotations

import pytest

from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.encoding.serialize import serialize
from fortap.encoding.shards import read_shard, shard_rows, write_shard


@pytest.fixture
def examples(tokenizer, table):
    first = serialize(table, tokenizer, context="sales by region")
    first.targets[FORMULA_KEY] = FormulaTargets(
        cell=3, mode="tokens", tokens=((1, "op", 20, 0),), ncp=((13, (1, 2)),)
    )
    second = serialize(table, tokenizer, cells=[(0, 0), (2, 3)], formula_inputs={(2, 3): "tokens"})
    return [first, second]


def test_round_trip(tmp_path, examples):
    path = tmp_path / "shards" / "part-00000.parquet"
    assert write_shard(path, examples) == 2
    assert shard_rows(path) == 2
    back = list(read_shard(path, batch_rows=1))
    assert len(back) == 2
    for got, want in zip(back, examples, strict=True):
        for name in ("token_ids", "numbers", "in_cell_pos", "rows", "cols", "top_coords",
                     "left_coords", "cell_ids", "cell_coords", "targets", "meta"):  # fmt: skip
            assert getattr(got, name) == getattr(want, name), name
        assert got.formats == [
            tuple(pytest.approx(v, abs=1e-6) for v in row) for row in want.formats
        ]


def test_write_is_atomic_and_deterministic(tmp_path, examples):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_shard(a, examples)
    write_shard(b, examples)
    assert a.read_bytes() == b.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.parquet", "b.parquet"]  # no .tmp left
