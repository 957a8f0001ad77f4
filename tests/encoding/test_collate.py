"""Examples -> Batch: shapes, pad values, [SEP] indices, target collators."""

from __future__ import annotations

import pytest
import torch

from fortap.encoding.collate import collate
from fortap.encoding.example import NULL_POS, Example
from fortap.encoding.formats import DEFAULT_FORMAT
from fortap.encoding.serialize import serialize


@pytest.fixture
def examples(table, tokenizer) -> list[Example]:
    long = serialize(table, tokenizer, context="Sales by region")  # 29 tokens, 12 cells
    short = serialize(table, tokenizer, cells=[(0, 3), (2, 3)])  # [CLS] [SEP] total [SEP] [VAL]
    return [long, short]


def test_shapes_and_dtypes(examples):
    batch = collate(examples)
    b, t, c = 2, 32, 12  # 29 tokens rounded up to a multiple of 8; most cells = 12
    assert batch.token_ids.shape == (b, t) and batch.token_ids.dtype == torch.long
    assert batch.numbers.shape == (b, t, 4)
    assert (
        batch.in_cell_pos.shape
        == batch.rows.shape
        == batch.cols.shape
        == batch.cell_ids.shape
        == (b, t)
    )
    assert batch.top_coords.shape == batch.left_coords.shape == (b, t, 4)
    assert batch.formats.shape == (b, t, 11) and batch.formats.dtype == torch.float32
    assert batch.token_mask.shape == (b, t) and batch.token_mask.dtype == torch.bool
    assert batch.sep_index.shape == (b, c) and batch.sep_index.dtype == torch.long
    assert batch.cell_mask.shape == (b, c) and batch.cell_mask.dtype == torch.bool
    assert collate(examples, pad_to_multiple=1).token_ids.shape == (2, 29)


def test_padding_values(examples):
    batch = collate(examples)
    pad = slice(5, None)  # the short example has 5 real tokens
    assert batch.token_ids[1, pad].eq(0).all()
    assert batch.numbers[1, pad].eq(11).all()
    assert batch.in_cell_pos[1, pad].eq(0).all()
    assert batch.rows[1, pad].eq(NULL_POS).all() and batch.cols[1, pad].eq(NULL_POS).all()
    assert batch.top_coords[1, pad].eq(-1).all() and batch.left_coords[1, pad].eq(-1).all()
    assert torch.equal(batch.formats[1, 7], torch.tensor(DEFAULT_FORMAT))
    assert batch.cell_ids[1, pad].eq(-1).all()
    assert batch.token_mask[1].tolist() == [True] * 5 + [False] * 27
    assert batch.token_mask[0].sum() == 29


def test_real_values_survive_unchanged(examples):
    batch = collate(examples)
    for b, ex in enumerate(examples):
        k = len(ex)
        assert batch.token_ids[b, :k].tolist() == ex.token_ids
        assert batch.numbers[b, :k].tolist() == [list(n) for n in ex.numbers]
        assert batch.top_coords[b, :k].tolist() == [list(x) for x in ex.top_coords]
        assert batch.formats[b, :k].tolist() == [list(f) for f in ex.formats]
        assert batch.cell_ids[b, :k].tolist() == ex.cell_ids


def test_sep_index_points_at_each_cells_sep(examples, tokenizer):
    batch = collate(examples)
    assert batch.sep_index[1].tolist() == [1, 3] + [0] * 10
    assert batch.cell_mask[1].tolist() == [True, True] + [False] * 10
    assert batch.sep_index[0, :3].tolist() == [4, 6, 9]
    seps = batch.token_ids.gather(1, batch.sep_index)
    assert seps[batch.cell_mask].eq(tokenizer.sep_id).all()


def test_targets_go_through_their_collator_or_stay_lists(examples):
    examples[0].targets = {"mlm": [5, 6], "note": "a"}
    examples[1].targets = {"mlm": [7]}

    def pad_mlm(values, batch):
        out = torch.full(batch.token_ids.shape, -100)
        for b, v in enumerate(values):
            out[b, : len(v)] = torch.tensor(v)
        return out

    batch = collate(examples, target_collators={"mlm": pad_mlm})
    assert batch.targets["mlm"][:, :2].tolist() == [[5, 6], [7, -100]]
    assert batch.targets["note"] == ["a", None]
    assert batch.meta[0]["sheet"] == "Sheet1"


def test_batch_moves_to_a_device(examples):
    batch = collate(examples).to("cpu")
    assert batch.token_ids.device.type == "cpu"


def test_broken_examples_are_named(examples):
    with pytest.raises(ValueError, match="no examples"):
        collate([])
    examples[1].rows.pop()
    with pytest.raises(ValueError, match="example 1 has 4 rows for 5 tokens"):
        collate(examples)


def test_batch_to_moves_every_nested_target(examples):
    """Objectives' targets are dicts of tensors (and lists of them): all follow the batch."""
    batch = collate(examples[:2])
    batch.targets["nested"] = {"a": torch.zeros(2), "b": [torch.ones(1), 3], "c": "text"}
    moved = batch.to("meta")
    assert moved.token_ids.device.type == "meta"
    assert moved.targets["nested"]["a"].device.type == "meta"
    assert moved.targets["nested"]["b"][0].device.type == "meta"
    assert moved.targets["nested"]["b"][1] == 3 and moved.targets["nested"]["c"] == "text"
    assert batch.targets["nested"]["a"].device.type == "cpu"  # the original stays
