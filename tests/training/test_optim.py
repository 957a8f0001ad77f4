"""AdamW groups (decay really applied, never to biases/LayerNorm) and the schedule."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from fortap.training.optim import OptimConfig, build_optimizer, lr_at, param_groups, set_lr


def small_model() -> nn.Module:
    return nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 4), nn.LayerNorm(4), nn.Linear(4, 2))


def test_groups_put_matrices_in_decay_and_the_rest_out():
    model = small_model()
    decay, no_decay = param_groups(model, 0.01, lr=1e-3)
    names = {id(p): n for n, p in model.named_parameters()}
    assert sorted(names[id(p)] for p in decay["params"]) == ["0.weight", "1.weight", "3.weight"]
    assert sorted(names[id(p)] for p in no_decay["params"]) == [
        "1.bias",
        "2.bias",
        "2.weight",
        "3.bias",
    ]
    assert (decay["weight_decay"], no_decay["weight_decay"]) == (0.01, 0.0)
    assert decay["peak_lr"] == decay["lr"] == no_decay["peak_lr"] == 1e-3


def test_weight_decay_is_really_applied():
    """The reference's key bug left decay at 0; with zero gradients only decay moves weights."""
    model = nn.Linear(3, 3)
    before_w, before_b = model.weight.detach().clone(), model.bias.detach().clone()
    optimizer = build_optimizer(model, OptimConfig(lr=0.1, weight_decay=0.5))
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    optimizer.step()
    assert torch.allclose(model.weight, before_w * (1 - 0.1 * 0.5))
    assert torch.equal(model.bias, before_b)


def test_schedule_warms_up_then_decays_linearly():
    cfg = OptimConfig(lr=1.0, warmup=0.1)
    assert [lr_at(s, 100, cfg) for s in (0, 4, 9)] == pytest.approx([0.1, 0.5, 1.0])
    assert [lr_at(s, 100, cfg) for s in (10, 55, 99)] == pytest.approx([1.0, 0.5, 1 / 90])
    assert lr_at(0, 100, OptimConfig(lr=1.0, warmup=0.0)) == 1.0


@pytest.mark.parametrize(
    ("field", "value"), [("lr", 0.0), ("warmup", 1.5), ("beta2", 1.0), ("clip_norm", -1.0)]
)
def test_config_rejects_nonsense_naming_the_field(field, value):
    with pytest.raises(ValueError, match=f"OptimConfig.{field}"):
        OptimConfig(**{field: value})


class WithHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4))
        self.head = nn.Linear(4, 2)


def test_lr_and_encoder_lr_give_heads_and_encoder_their_own_groups_and_peaks():
    model = WithHead()
    groups = param_groups(model, 0.01, lr=3e-3, encoder_lr=7e-5)
    names = {id(p): n for n, p in model.named_parameters()}
    by_peak = {
        (g["peak_lr"], g["weight_decay"]): sorted(names[id(p)] for p in g["params"]) for g in groups
    }
    assert by_peak == {
        (7e-5, 0.01): ["encoder.0.weight"],
        (7e-5, 0.0): ["encoder.0.bias", "encoder.1.bias", "encoder.1.weight"],
        (3e-3, 0.01): ["head.weight"],
        (3e-3, 0.0): ["head.bias"],
    }
    optimizer = build_optimizer(model, OptimConfig(lr=3e-3, encoder_lr=7e-5))
    set_lr(optimizer, 0.5)
    assert sorted(g["lr"] for g in optimizer.param_groups) == pytest.approx(
        [3.5e-5, 3.5e-5, 1.5e-3, 1.5e-3]
    )


def test_one_rate_keeps_two_groups():
    assert len(param_groups(WithHead(), 0.01, lr=1e-3)) == 2
    assert len(param_groups(WithHead(), 0.01, lr=1e-3, encoder_lr=1e-3)) == 2
    assert OptimConfig(lr=2e-3).encoder_rate == 2e-3  # encoder_lr 0: the one rate


def test_the_heads_rate_also_reaches_the_encoders_new_parameters():
    """Parameters the initialisation left new (MiniLM has no tree or number embeddings) learn
    at the heads' rate; the loaded ones at the encoder's."""
    model = WithHead()
    model.encoder.new_parameters = frozenset({"1.weight"})  # as `load_minilm` records them
    groups = param_groups(model, 0.01, lr=1e-3, encoder_lr=1e-4)
    names = {id(p): n for n, p in model.named_parameters()}
    heads = sorted(names[id(p)] for g in groups if g["peak_lr"] == 1e-3 for p in g["params"])
    assert heads == ["encoder.1.weight", "head.bias", "head.weight"]


def test_minilm_initialisation_records_its_new_parameters():
    from fortap.model.config import ModelConfig
    from fortap.model.pretrained import load_minilm

    encoder, report = load_minilm(ModelConfig.minilm())
    assert encoder.new_parameters == frozenset(report.new)
    assert "embeddings.top_tree_embeddings.weight" in encoder.new_parameters
    assert "embeddings.word_embeddings.weight" not in encoder.new_parameters


class _Embeddings(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(10, 4)


class _Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embeddings = _Embeddings()
        self.layer = nn.Linear(4, 4)


class _WithHead(nn.Module):
    """An encoder with a token table and a head tied to it, as the MLM decoder is."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = _Encoder()
        self.head_bias = nn.Parameter(torch.zeros(10))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        hidden = self.encoder.layer(self.encoder.embeddings.word_embeddings(ids))  # (N, 4)
        return hidden @ self.encoder.embeddings.word_embeddings.weight.t() + self.head_bias


def test_frozen_word_embeddings_stay_and_the_rest_learns():
    model = _WithHead()
    table = model.encoder.embeddings.word_embeddings.weight
    before, layer_before = table.detach().clone(), model.encoder.layer.weight.detach().clone()
    optimizer = build_optimizer(model, OptimConfig(lr=0.1, freeze_word_embeddings=True))
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    assert id(table) not in held and not table.requires_grad
    loss = torch.nn.functional.cross_entropy(
        model(torch.tensor([1, 2, 3])), torch.tensor([3, 2, 1])
    )
    loss.backward()
    optimizer.step()
    assert torch.equal(table, before)
    assert not torch.equal(model.encoder.layer.weight, layer_before)


def test_word_embeddings_learn_unless_frozen():
    model = _WithHead()
    optimizer = build_optimizer(model, OptimConfig(lr=0.1))
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    assert id(model.encoder.embeddings.word_embeddings.weight) in held
