"""FortapEncoder: shapes, padding invariance, determinism, the tree mask matters, gradients."""

from __future__ import annotations

import dataclasses
import random

import torch

from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder


def test_shapes_and_zero_padded_cells(tiny_config, tiny_batch):
    torch.manual_seed(0)
    out = FortapEncoder(tiny_config).eval()(tiny_batch)
    B, T = tiny_batch.token_ids.shape
    C = tiny_batch.sep_index.shape[1]
    assert out.token_states.shape == (B, T, 64)
    assert out.cell_states.shape == (B, C, 64)
    assert torch.equal(out.cell_states[1, 6:], torch.zeros(C - 6, 64))  # example 1 has 2×3 cells
    # default pooling: the mean over the cell's positions (its [SEP] and its tokens)
    for b, k in ((0, 3), (1, 5)):
        own = tiny_batch.cell_ids[b] == k + 1  # (T,) cell k's tokens
        assert int(own.sum()) >= 1 and int(own.nonzero()[0]) == int(tiny_batch.sep_index[b, k])
        expected = out.token_states[b, own].mean(0)  # (D,)
        torch.testing.assert_close(out.cell_states[b, k], expected, atol=1e-6, rtol=0)


def test_sep_pooling_reads_the_sep_state(tiny_config, tiny_batch):
    torch.manual_seed(0)
    config = dataclasses.replace(tiny_config, cell_pooling="sep")
    out = FortapEncoder(config).eval()(tiny_batch)
    sep = tiny_batch.sep_index  # (B, C)
    assert torch.equal(out.cell_states[0, 3], out.token_states[0, sep[0, 3]])
    assert torch.equal(out.cell_states[1, 6:], torch.zeros_like(out.cell_states[1, 6:]))


def test_padding_does_not_change_any_real_output(tiny_config, inputs):
    torch.manual_seed(0)
    model = FortapEncoder(tiny_config).eval()
    rng = random.Random(1)
    short = inputs.make_example(tiny_config, rng, n_rows=2, n_cols=2)
    long = inputs.make_example(tiny_config, rng, n_rows=5, n_cols=4)
    alone = model(inputs.pad([short]))
    together = model(inputs.pad([short, long]))
    T, C = len(short["token_ids"]), len(short["sep_index"])
    assert together.token_states.shape[1] > T
    torch.testing.assert_close(
        together.token_states[0, :T], alone.token_states[0], atol=1e-5, rtol=0
    )
    torch.testing.assert_close(together.cell_states[0, :C], alone.cell_states[0], atol=1e-5, rtol=0)
    assert torch.equal(together.cell_states[0, C:], torch.zeros_like(together.cell_states[0, C:]))


def test_padding_invariance_without_tree_attention(inputs):
    config = ModelConfig.tiny(tree_attention=False, hidden_dropout=0.0)
    torch.manual_seed(0)
    model = FortapEncoder(config).eval()
    rng = random.Random(2)
    short, long = inputs.make_example(config, rng, 1, 2), inputs.make_example(config, rng, 4, 4)
    alone = model(inputs.pad([short])).token_states[0]
    together = model(inputs.pad([short, long])).token_states[0, : len(alone)]
    torch.testing.assert_close(together, alone, atol=1e-5, rtol=0)


def test_deterministic_under_a_seed(tiny_batch):
    config = ModelConfig.tiny()  # dropout on: train-mode outputs follow the seed too

    def run(seed):
        torch.manual_seed(seed)
        model = FortapEncoder(config).train()
        return model.state_dict(), model(tiny_batch).token_states

    (w1, y1), (w2, y2), (_, y3) = run(5), run(5), run(6)
    assert all(torch.equal(w1[k], w2[k]) for k in w1)
    assert torch.equal(y1, y2)
    assert not torch.allclose(y1, y3)


def test_tree_mask_changes_the_answer(tiny_batch):
    torch.manual_seed(0)
    tree = FortapEncoder(ModelConfig.tiny(hidden_dropout=0.0, attention_distance=2)).eval()
    plain = FortapEncoder(dataclasses.replace(tree.config, tree_attention=False)).eval()
    plain.load_state_dict(tree.state_dict())
    real = tiny_batch.token_mask
    assert not torch.allclose(
        tree(tiny_batch).token_states[real], plain(tiny_batch).token_states[real]
    )


def test_gradients_reach_every_parameter(tiny_config, tiny_batch):
    torch.manual_seed(0)
    model = FortapEncoder(tiny_config)
    out = model(tiny_batch)
    (out.token_states[tiny_batch.token_mask].pow(2).mean() + out.cell_states.sum()).backward()
    missing = [n for n, p in model.named_parameters() if p.grad is None or not p.grad.abs().sum()]
    assert missing == []


def test_init_follows_the_bert_recipe(tiny_config):
    torch.manual_seed(0)
    model = FortapEncoder(tiny_config)
    emb = model.embeddings.word_embeddings.weight
    assert abs(emb.std().item() - 0.02) < 0.002
    ln = model.encoder.layer[0].output.LayerNorm
    assert torch.equal(ln.weight, torch.ones(64)) and torch.equal(ln.bias, torch.zeros(64))
    assert torch.equal(model.encoder.layer[0].intermediate.dense.bias, torch.zeros(128))
