"""Masked language modelling: targets, collate, head (tied decoder) and overfitting."""

from __future__ import annotations

import random

import pytest
import torch

from fortap.objectives import mlm
from fortap.objectives.base import TargetContext
from fortap.objectives.multitask import MultiObjectiveModel
from fortap.text.numbers import NAN_FEATURES

from .objective_kit import batch_of, overfit, seeded, tiny_encoder


def build(example, vocab, cfg, seed=0):
    return mlm.targets(example, cfg, TargetContext(vocab=vocab, rng=seeded(seed)))


def test_whole_cell_masking_labels_every_word_and_the_sep(example, vocab, tokenizer):
    cfg = mlm.MlmConfig(
        cell_rate=1.0, whole_cell_rate=1.0, mask_rate=1.0, random_rate=0.0, context=False
    )
    out = build(example, vocab, cfg)
    target = out.targets["mlm"]
    # the four word cells: region, revenue, north, south; each [SEP] predicts the cell's word
    ids = [tokenizer.id_of(w) for w in ("region", "revenue", "north", "south")]
    assert target["positions"] == [4, 5, 6, 7, 16, 17, 22, 23]
    assert target["labels"] == [ids[0], ids[0], ids[1], ids[1], ids[2], ids[2], ids[3], ids[3]]
    for pos in (5, 7, 17, 23):
        assert out.token_ids[pos] == vocab.mask
    for pos in (4, 6, 16, 22):
        assert out.token_ids[pos] == vocab.sep  # [SEP]s are labelled, not replaced
    unchanged = [p for p in range(len(example)) if p not in (5, 7, 17, 23)]
    assert [out.token_ids[p] for p in unchanged] == [example.token_ids[p] for p in unchanged]


def test_numbers_are_never_targets(example, vocab):
    cfg = mlm.MlmConfig(cell_rate=1.0, max_cells=50, whole_cell_rate=1.0)
    for seed in range(20):
        out = build(example, vocab, cfg, seed)
        for pos in out.targets["mlm"]["positions"]:
            assert example.numbers[pos] == NAN_FEATURES
            assert example.token_ids[pos] not in (vocab.emp, 1)  # never [EMP] nor [VAL]


def test_single_token_mode_and_noise_split(example, vocab):
    cfg = mlm.MlmConfig(cell_rate=1.0, whole_cell_rate=0.0, mask_rate=0.8, random_rate=0.1)
    kinds = {"mask": 0, "random": 0, "same": 0}
    for seed in range(300):
        out = build(example, vocab, cfg, seed)
        target = out.targets["mlm"]
        assert len(target["positions"]) == 5  # one piece in each of 4 cells + the context
        for pos, label in zip(target["positions"], target["labels"], strict=True):
            assert example.token_ids[pos] == label
            token = out.token_ids[pos]
            kinds["mask" if token == vocab.mask else "same" if token == label else "random"] += 1
    total = sum(kinds.values())
    assert 0.75 < kinds["mask"] / total < 0.85
    assert 0.06 < kinds["random"] / total < 0.14


def test_targets_are_a_pure_function_of_the_rng(example, vocab):
    cfg = mlm.MlmConfig()
    a, b = build(example, vocab, cfg, 7), build(example, vocab, cfg, 7)
    assert a.token_ids == b.token_ids and a.targets == b.targets
    assert "mlm" not in example.targets


def test_collate_flattens_labelled_positions(example, vocab):
    cfg = mlm.MlmConfig(cell_rate=1.0, whole_cell_rate=0.0)
    first, second = build(example, vocab, cfg, 0), build(example, vocab, cfg, 1)
    out = mlm.collate([first.targets["mlm"], None, second.targets["mlm"]])
    n1 = len(first.targets["mlm"]["positions"])
    assert out["batch_index"].tolist() == [0] * n1 + [2] * len(second.targets["mlm"]["positions"])
    assert out["token_index"].tolist()[:n1] == first.targets["mlm"]["positions"]
    assert out["labels"].dtype == torch.long


def test_decoder_is_tied_to_the_word_embeddings():
    encoder = tiny_encoder()
    head = mlm.MlmHead(encoder)
    names = {name for name, _ in head.named_parameters()}
    assert names == {"bias", "transform.weight", "transform.bias", "norm.weight", "norm.bias"}
    assert head._tied[0] is encoder.embeddings.word_embeddings


def test_empty_batch_gives_zero_loss_with_a_graph():
    scores = torch.zeros(0, 10, requires_grad=True)
    target = {"labels": torch.zeros(0, dtype=torch.long)}
    loss = mlm.loss(scores, target)
    assert loss.item() == 0.0 and loss.requires_grad
    assert mlm.metric(scores, target)["n"] == 0.0


@pytest.mark.parametrize("seed", [0])
def test_head_overfits_one_batch(example, vocab, seed):
    model = MultiObjectiveModel(tiny_encoder(seed), [mlm.OBJECTIVE])
    rng = random.Random(seed)
    examples = [model.build_targets(example, vocab, rng, 256) for _ in range(4)]
    batch = batch_of(examples, model)
    logs, steps = overfit(model, batch)
    print(f"mlm overfit: {steps} updates, loss {logs['loss/mlm']:.4f}")
    assert logs["loss/mlm"] < 0.05
    assert logs["acc/mlm"] == 1.0


def test_formula_related_cells_are_never_masked(vocab, tokenizer):
    from fortap.objectives.draft import formula_related

    from .formula_samples import all_examples

    cfg = mlm.MlmConfig(cell_rate=1.0, max_cells=50, whole_cell_rate=1.0, context=False)
    masked_cells = 0
    for seed, sample in enumerate(all_examples(tokenizer)):
        out = build(sample, vocab, cfg, seed)
        cells = {sample.cell_ids[p] for p in out.targets["mlm"]["positions"]}
        assert not cells & formula_related(sample)
        masked_cells += len(cells)
    assert masked_cells > 0  # "item", "south" and the other rows' labels remain maskable
