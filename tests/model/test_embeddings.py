"""Table embeddings: slice widths, shapes, which inputs matter, range errors naming the field."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from fortap.model.config import ModelConfig
from fortap.model.embeddings import (
    TableEmbeddings,
    number_widths,
    position_widths,
    sinusoid_table,
)


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


def test_sinusoid_rows_make_products_depend_on_the_offset_only():
    table = sinusoid_table(257, 48, 0.1)  # (257, 48)
    assert table.shape == (257, 48)
    assert torch.allclose(table.norm(dim=1), torch.full((257,), 0.1 * 24**0.5))
    gram = table @ table.T
    for offset in (1, 2, 30):
        same = torch.diagonal(gram, offset)  # <row p, row p + offset> for every p
        assert torch.allclose(same, same[0].expand_as(same), atol=1e-6), offset
    assert gram[10, 11] > gram[10, 13] > gram[10, 40]  # nearer rows are more alike
    assert sinusoid_table(5, 7, 1.0)[:, -1].tolist() == pytest.approx(
        torch.arange(5.0).mul(10000.0 ** (-6 / 7)).sin().tolist()
    )  # odd width: a last sine


def test_row_and_column_tables_start_as_sinusoids_unless_switched_off(tiny_config):
    from fortap.model.encoder import FortapEncoder

    encoder = FortapEncoder(dataclasses.replace(tiny_config, row_col_init=0.1))
    rows = encoder.embeddings.row_embeddings.weight
    assert torch.equal(rows, sinusoid_table(*rows.shape, 0.1))
    torch.manual_seed(0)
    plain = FortapEncoder(dataclasses.replace(tiny_config, row_col_init=0.0))
    std = plain.embeddings.col_embeddings.weight.std().item()
    assert std == pytest.approx(tiny_config.init_std, rel=0.2)
    with pytest.raises(ValueError, match="ModelConfig.row_col_init"):
        dataclasses.replace(tiny_config, row_col_init=-1.0)
