"""NCP targets on literal formula samples, the pooled head, and overfitting one batch."""

from __future__ import annotations

from dataclasses import replace

from fortap.encoding.formula_targets import FormulaTargets
from fortap.formula.targets import NCP_INDEX
from fortap.objectives import ncp
from fortap.objectives.base import TargetContext
from fortap.objectives.multitask import MultiObjectiveModel

from .formula_samples import all_examples, formula_example
from .objective_kit import batch_of, overfit, seeded, tiny_encoder


def build(example, vocab, cfg=None):
    cfg = cfg or ncp.NcpConfig()
    return ncp.targets(example, cfg, TargetContext(vocab=vocab, rng=seeded(0)))


def test_groups_of_a_sum_and_a_minus(tokenizer, vocab):
    ex = formula_example(tokenizer, (2, 4), "value")  # E3 =SUM(B3:D3)
    ids = {rc: k for k, rc in enumerate(ex.cell_coords, start=1)}
    assert build(ex, vocab).targets["ncp"] == {
        "groups": [[NCP_INDEX["SUM"], [ids[(2, 1)], ids[(2, 3)]]]]
    }
    ex = formula_example(tokenizer, (3, 3), "tag")  # D4 =D2-D3
    ids = {rc: k for k, rc in enumerate(ex.cell_coords, start=1)}
    assert build(ex, vocab).targets["ncp"] == {
        "groups": [[NCP_INDEX["-"], [ids[(1, 3)], ids[(2, 3)]]]]
    }


def test_formula_tokens_give_no_target_by_default(tokenizer, vocab):
    ex = formula_example(tokenizer, (2, 4), "tokens")
    assert build(ex, vocab).targets["ncp"] == {"groups": []}
    assert build(ex, vocab, ncp.NcpConfig(skip_formula_tokens=False)).targets["ncp"]["groups"]


def test_collate_members_and_head_shapes(tokenizer, vocab):
    model = MultiObjectiveModel(tiny_encoder(), [ncp.OBJECTIVE])
    examples = [build(e, vocab) for e in all_examples(tokenizer, ("value",))]
    batch = batch_of(examples, model)
    target = batch.targets["ncp"]
    assert target["members"].shape == (6, batch.cell_mask.shape[1])
    assert target["members"].sum(1).tolist() == [2] * 6
    assert target["labels"].tolist() == [NCP_INDEX[o] for o in ("+", "SUM", "+", "SUM", "-", "+")]
    scores = model.heads["ncp"](model.encoder(batch), batch)
    assert scores.shape == (6, 17)


def test_head_overfits_one_batch(tokenizer, vocab):
    model = MultiObjectiveModel(tiny_encoder(), [ncp.OBJECTIVE])
    batch = batch_of([build(e, vocab) for e in all_examples(tokenizer, ("tag", "value"))], model)
    logs, _ = overfit(model, batch, steps=300)
    assert logs["acc/ncp"] == 1.0 and logs["loss/ncp"] < 0.02


def test_empty_batch_has_zero_loss(tokenizer, vocab, example):
    model = MultiObjectiveModel(tiny_encoder(), [ncp.OBJECTIVE])
    batch = batch_of([build(example, vocab)], model)
    loss, logs = model(batch)
    loss.backward()
    assert logs["loss/ncp"] == 0.0 and logs["n/ncp"] == 0.0


def test_neighbour_groups_count_even_when_the_formula_is_shown_as_tokens():
    facts = FormulaTargets(
        cell=1, mode="tokens", ncp=((13, (2, 3)),), ncp_neighbours=((1, (4, 5)),)
    )
    assert ncp.operand_groups(facts, ncp.NcpConfig()) == [(1, (4, 5))]
    assert ncp.operand_groups(replace(facts, mode="tag"), ncp.NcpConfig()) == [
        (13, (2, 3)),
        (1, (4, 5)),
    ]
    assert ncp.operand_groups(None, ncp.NcpConfig()) == []
