"""NRP targets on a literal formula sample, the head's shapes, and overfitting one batch."""

from __future__ import annotations

import pytest
import torch

from fortap.objectives import nrp
from fortap.objectives.base import TargetContext
from fortap.objectives.multitask import MultiObjectiveModel

from .formula_samples import all_examples, formula_example
from .objective_kit import batch_of, overfit, seeded, tiny_encoder


def ctx(vocab, seed=0, max_tokens=256):
    return TargetContext(vocab=vocab, rng=seeded(seed), max_tokens=max_tokens)


def test_pairs_for_a_row_formula(tokenizer, vocab):
    ex = formula_example(tokenizer, (1, 4), "tag")  # E2 =B2+C2
    ids = {rc: k for k, rc in enumerate(ex.cell_coords, start=1)}
    out = nrp.targets(ex, nrp.NrpConfig(text_rate=0.0), ctx(vocab))
    assert out.targets["nrp"] == {
        "query": ids[(0, 4)],  # "total", the formula cell's top header
        "candidates": [ids[(0, 1)], ids[(0, 2)], ids[(0, 3)]],  # 2019, 2020 | 2021
        "labels": [1, 1, 0],
        "offsets": [3, 2, 1],  # columns from each candidate to "total"
        "tags": None,
    }
    assert out.token_ids == ex.token_ids


def test_negatives_are_capped_per_positive(tokenizer, vocab):
    ex = formula_example(tokenizer, (1, 4), "tag")
    out = nrp.targets(ex, nrp.NrpConfig(negative_ratio=0, text_rate=0.0), ctx(vocab))
    assert out.targets["nrp"]["labels"] == [1, 1]


def test_text_variant_inserts_a_prompt_and_tags_cells(tokenizer, vocab):
    ex = formula_example(tokenizer, (1, 4), "value")
    ids = {rc: k for k, rc in enumerate(ex.cell_coords, start=1)}
    out = nrp.targets(ex, nrp.NrpConfig(text_rate=1.0, min_noise=3, max_noise=3), ctx(vocab))
    added = len(out) - len(ex)
    assert added == 3 + 1 + 1  # noise + "north" + "total"
    prompt = out.token_ids[1 : 1 + added]
    assert tokenizer.id_of("north") in prompt and tokenizer.id_of("total") in prompt
    assert out.cell_ids[: 1 + added] == [0] * (1 + added)
    assert out.token_ids[1 + added :] == ex.token_ids[1:]
    tags = out.targets["nrp"]["tags"]
    assert tags[ids[(1, 0)] - 1] == 1 and tags[ids[(0, 4)] - 1] == 1  # row and column headers
    assert tags[ids[(1, 4)] - 1] == 2  # the formula cell
    assert tags[ids[(0, 1)] - 1] == 3 and tags[ids[(0, 2)] - 1] == 3  # referenced headers
    assert tags[ids[(0, 3)] - 1] == 0 and sum(t > 0 for t in tags) == 5


def test_no_facts_no_targets(tokenizer, vocab, example):
    out = nrp.targets(example, nrp.NrpConfig(), ctx(vocab))
    assert out.targets["nrp"] == {
        "query": 0,
        "candidates": [],
        "labels": [],
        "offsets": [],
        "tags": None,
    }


def test_collate_head_and_metric_shapes(tokenizer, vocab):
    model = MultiObjectiveModel(tiny_encoder(), [nrp.OBJECTIVE])
    rng = seeded(1)
    examples = [model.build_targets(e, vocab, rng, 256) for e in all_examples(tokenizer)[:4]]
    batch = batch_of(examples, model)
    target = batch.targets["nrp"]
    n = sum(len(e.targets["nrp"]["labels"]) for e in examples)
    assert target["labels"].shape == (n,) and target["tags"].shape == batch.cell_mask.shape
    scores = model.heads["nrp"](model.encoder(batch), batch)
    assert scores["pair"].shape == (n, 2) and scores["tag"].shape == (*batch.cell_mask.shape, 4)
    logs = nrp.metric(scores, target)
    assert set(logs) >= {"f1", "acc", "tp", "fp", "fn", "tag_acc"}


def overfit_nrp(tokenizer, vocab, text_rate, examples, stop_below=0.05):
    cfg = nrp.NrpConfig(text_rate=text_rate)
    model = MultiObjectiveModel(tiny_encoder(), [nrp.OBJECTIVE], {"nrp": cfg})
    rng = seeded(2)
    batch = batch_of([model.build_targets(e, vocab, rng, 256) for e in examples], model)
    logs, _ = overfit(model, batch, steps=300, stop_below=stop_below)
    return logs


def test_pair_head_overfits_one_batch(tokenizer, vocab):
    logs = overfit_nrp(tokenizer, vocab, 0.0, all_examples(tokenizer, ("tag",)))
    assert logs["f1/nrp"] == 1.0 and logs["loss/nrp"] < 0.05


def test_tag_head_overfits_one_batch(tokenizer, vocab):
    # "other" weighs 0.1 in the loss, so a low loss alone can hide one wrong "other" cell
    logs = overfit_nrp(tokenizer, vocab, 1.0, all_examples(tokenizer, ("tag",))[:2], 0.005)
    assert logs["tag_acc/nrp"] == 1.0 and logs["loss/nrp"] < 0.005


def test_config_rejects_nonsense():
    with pytest.raises(ValueError, match="NrpConfig.text_rate"):
        nrp.NrpConfig(text_rate=2.0)


def test_offset_feature_reads_the_pair_offset(tokenizer, vocab):
    cfg = nrp.NrpConfig(text_rate=0.0, offsets=2)
    model = MultiObjectiveModel(tiny_encoder(), [nrp.OBJECTIVE], {"nrp": cfg})
    examples = [model.build_targets(e, vocab, seeded(3), 256) for e in all_examples(tokenizer)[:4]]
    batch = batch_of(examples, model)
    head = model.heads["nrp"]
    assert head.offset.weight.shape == (5, head.pair[0].in_features // 5)
    states = model.encoder(batch)
    before = head(states, batch)["pair"]
    batch.targets["nrp"]["offset"] = batch.targets["nrp"]["offset"] + 1  # clamped to ±2 inside
    assert not torch.allclose(head(states, batch)["pair"], before)
    logs, _ = overfit(model, batch, steps=300, stop_below=0.05)
    assert logs["f1/nrp"] == 1.0
    with pytest.raises(ValueError, match="NrpConfig.offsets"):
        nrp.NrpConfig(offsets=-1)
