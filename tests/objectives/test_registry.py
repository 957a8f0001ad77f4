"""The registry and the multi-objective model that sums the weighted losses."""

from __future__ import annotations

import random

import pytest

from fortap.corpus.snippets import SNIPPETS
from fortap.objectives.multitask import MultiObjectiveModel
from fortap.objectives.registry import OBJECTIVES, resolve

from .objective_kit import batch_of, tiny_encoder


def test_registry_names_and_target_order():
    assert list(OBJECTIVES)[:3] == ["mlm", "cell_cloze", "table_context"]
    assert [o.name for o in resolve(["mlm", "table_context", "cell_cloze", "mlm"])] == [
        "cell_cloze",
        "table_context",
        "mlm",
    ]
    with pytest.raises(ValueError, match="unknown objective 'nope'; choose from mlm, cell_cloze"):
        resolve(["nope"])


def test_all_three_objectives_share_one_encoder_pass(example, vocab):
    tuta = ["mlm", "cell_cloze", "table_context"]
    model = MultiObjectiveModel(tiny_encoder(), resolve(tuta), weights={"mlm": 0.5})
    example.meta[SNIPPETS] = ["quarterly revenue"]
    rng = random.Random(0)
    examples = [
        model.build_targets(example, vocab, rng, 256, negatives=["rainfall by month"])
        for _ in range(3)
    ]
    assert all(set(e.targets) == set(tuta) for e in examples)
    batch = batch_of(examples, model)
    loss, logs = model(batch)
    expected = 0.5 * logs["loss/mlm"] + logs["loss/cell_cloze"] + logs["loss/table_context"]
    assert loss.item() == pytest.approx(expected, rel=1e-5)
    assert {"acc/mlm", "n/cell_cloze", "acc/table_context", "loss"} <= set(logs)
    loss.backward()
    assert model.encoder.embeddings.word_embeddings.weight.grad is not None
