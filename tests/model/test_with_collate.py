"""The encoder on real model input: a literal table through `serialize` and `collate`."""

from __future__ import annotations

import torch

from fortap.encoding.collate import collate
from fortap.encoding.serialize import serialize
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder

from ..encoding.conftest import sales_table


def test_serialised_table_encodes_and_padding_changes_nothing(tokenizer):
    table = sales_table()
    short = serialize(table, tokenizer, context="Sales by region")
    long = serialize(table, tokenizer, context="Sales by region in the first quarter of 2019")
    torch.manual_seed(0)
    config = ModelConfig.tiny(vocab_size=tokenizer.vocab_size, hidden_dropout=0.0)
    model = FortapEncoder(config).eval()
    alone = model(collate([short], pad_to_multiple=1))
    together = model(collate([short, long], pad_to_multiple=8))
    T, C = len(short), len(short.cell_coords)
    assert alone.token_states.shape == (1, T, 64) and alone.cell_states.shape[1] == C
    assert together.token_states.shape[1] % 8 == 0 and together.token_states.shape[1] > T
    torch.testing.assert_close(
        together.token_states[0, :T], alone.token_states[0], atol=1e-5, rtol=0
    )
    torch.testing.assert_close(together.cell_states[0, :C], alone.cell_states[0], atol=1e-5, rtol=0)
