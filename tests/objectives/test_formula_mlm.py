"""Formula MLM: masking all operators or all references, pointer targets, no leakage, overfitting."""

from __future__ import annotations

from fortap.encoding.formula_targets import FORMULA_KEY
from fortap.formula.tokens import FORMULA_VOCAB_INDEX
from fortap.objectives import formula_mlm
from fortap.objectives.base import TargetContext
from fortap.objectives.multitask import MultiObjectiveModel
from fortap.text.numbers import NAN_FEATURES

from .formula_samples import all_examples, formula_example
from .objective_kit import batch_of, overfit, seeded, tiny_encoder


def build(example, vocab, rate, seed=0):
    cfg = formula_mlm.FormulaMlmConfig(operator_rate=rate)
    return formula_mlm.targets(example, cfg, TargetContext(vocab=vocab, rng=seeded(seed)))


def test_operators_are_masked_and_labelled(tokenizer, vocab):
    ex = formula_example(tokenizer, (2, 4), "tokens")  # [SUM] [:] [RANGE] [RANGE]
    sep = ex.cell_ids.index(ex.targets[FORMULA_KEY].cell)
    out = build(ex, vocab, rate=1.0)
    assert out.targets["formula_mlm"] == {"op_positions": [sep + 1], "op_labels": [FORMULA_VOCAB_INDEX["[SUM]"]],
                                          "ref_positions": [], "ref_cells": []}  # fmt: skip
    assert out.token_ids[sep + 1] == vocab.mask
    assert (
        out.token_ids[sep + 2 : sep + 5] == ex.token_ids[sep + 2 : sep + 5]
    )  # [:] and the refs stay


def test_references_are_masked_without_leaking_their_cell(tokenizer, vocab):
    ex = formula_example(tokenizer, (2, 4), "tokens")
    ids = {rc: k for k, rc in enumerate(ex.cell_coords, start=1)}
    sep = ex.cell_ids.index(ids[(2, 4)])
    out = build(ex, vocab, rate=0.0)
    assert out.targets["formula_mlm"] == {"op_positions": [], "op_labels": [],
                                          "ref_positions": [sep + 3, sep + 4],
                                          "ref_cells": [ids[(2, 1)], ids[(2, 3)]]}  # fmt: skip
    for pos in (sep + 3, sep + 4):
        assert out.token_ids[pos] == vocab.mask
        assert tuple(out.numbers[pos]) == NAN_FEATURES
        for name in ("rows", "cols", "top_coords", "left_coords", "formats"):
            assert getattr(out, name)[pos] == getattr(ex, name)[sep], name  # the formula cell's
    assert ex.rows[sep + 3] == 2 and ex.cols[sep + 3] == 1  # before masking it pointed at B3


def test_only_formula_token_samples_have_targets(tokenizer, vocab):
    out = build(formula_example(tokenizer, (2, 4), "tag"), vocab, rate=0.5)
    assert out.targets["formula_mlm"] == {
        "op_positions": [],
        "op_labels": [],
        "ref_positions": [],
        "ref_cells": [],
    }


def test_head_overfits_one_batch(tokenizer, vocab):
    model = MultiObjectiveModel(tiny_encoder(), [formula_mlm.OBJECTIVE])
    rng = seeded(3)
    examples = [
        model.build_targets(e, vocab, rng, 256) for e in all_examples(tokenizer, ("tokens",))
    ]
    batch = batch_of(examples, model)
    scores = model.heads["formula_mlm"](model.encoder(batch), batch)
    n_ref = batch.targets["formula_mlm"]["ref_cells"].numel()
    assert scores["op"].shape[1] == 41 and scores["ref"].shape == (n_ref, batch.cell_mask.shape[1])
    logs, _ = overfit(model, batch, steps=300)
    assert logs["acc/formula_mlm"] == 1.0 and logs["loss/formula_mlm"] < 0.02
