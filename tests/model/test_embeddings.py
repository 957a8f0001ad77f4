"""Table embeddings: slice widths, shapes, which inputs matter, range errors naming the field."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from fortap.model.config import ModelConfig
from fortap.model.embeddings import TableEmbeddings, number_widths, position_widths


def test_widths_of_the_reference_sizes():
    assert number_widths(768) == (192, 192, 192, 192)
    assert position_widths(768, 4) == (96, 72, 96)  # TUTA: 96 | 4×72 | 96 | 4×72
    assert position_widths(384, 4) == (48, 36, 48)
    assert position_widths(64, 4) == (8, 6, 8)


@pytest.mark.parametrize("hidden", [16, 40, 64, 100, 384, 770])
def test_widths_always_sum_to_hidden(hidden):
    assert sum(number_widths(hidden)) == hidden
    row, level, col = position_widths(hidden, 4)
    assert row + col + 8 * level == hidden and min(row, level, col) > 0


def test_shape_and_every_input_matters(tiny_config, tiny_batch):
    torch.manual_seed(0)
    emb = TableEmbeddings(tiny_config).eval()
    for p in emb.parameters():  # default init is fine here; make every table non-trivial
        torch.nn.init.normal_(p, std=0.02)
    base = emb(tiny_batch)
    B, T = tiny_batch.token_ids.shape
    assert base.shape == (B, T, tiny_config.hidden)
    changes = {
        "numbers": (tiny_batch.numbers + 1) % 12,
        "in_cell_pos": tiny_batch.in_cell_pos + 1,
        "rows": (tiny_batch.rows + 1) % 257,
        "cols": (tiny_batch.cols + 1) % 257,
        "top_coords": tiny_batch.top_coords + 1,
        "left_coords": tiny_batch.left_coords + 1,
        "formats": 1 - tiny_batch.formats,
    }
    for name, value in changes.items():
        changed = emb(dataclasses.replace(tiny_batch, **{name: value}))
        assert not torch.allclose(changed, base), name


def test_plain_embeddings_ignore_table_inputs(tiny_batch):
    emb = TableEmbeddings(ModelConfig.tiny(table_embeddings=False, hidden_dropout=0.0))
    assert [n for n, _ in emb.named_parameters()] == [
        "word_embeddings.weight", "LayerNorm.weight", "LayerNorm.bias",
    ]  # fmt: skip
    moved = dataclasses.replace(tiny_batch, rows=torch.zeros_like(tiny_batch.rows))
    assert torch.equal(emb(moved), emb(tiny_batch))


@pytest.mark.parametrize(("name", "value"), [("token_ids", 1000), ("rows", 257), ("numbers", -1)])
def test_out_of_range_ids_name_the_field(tiny_config, tiny_batch, name, value):
    bad = getattr(tiny_batch, name).clone()
    bad.view(-1)[0] = value
    with pytest.raises(ValueError, match=f"Batch.{name} holds {value}"):
        TableEmbeddings(tiny_config)(dataclasses.replace(tiny_batch, **{name: bad}))
