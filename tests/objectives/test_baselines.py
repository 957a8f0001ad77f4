"""The reference points of the ForTaP objectives (`fortap.objectives.baselines`) on literal
formula samples: hand-counted accuracies."""

from __future__ import annotations

import pytest

from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.objectives import ncp, nrp
from fortap.objectives.base import TargetContext
from fortap.objectives.baselines import (
    formula_mlm_baseline,
    ncp_baseline,
    ncp_class_counts,
    ncp_operand_shape,
    ncp_position_rule,
    nrp_baseline,
    nrp_fitted_position_rule,
    nrp_position_rule,
)

from .formula_samples import formula_example
from .objective_kit import seeded


def ctx(vocab, seed=0, max_tokens=256):
    return TargetContext(vocab=vocab, rng=seeded(seed), max_tokens=max_tokens)


def test_baseline_from_targets():
    values = [{"labels": [1, 0, 0], "tags": [0, 0, 1, 2]}, {"labels": [1, 0], "tags": None}, None]
    base = nrp_baseline(values)
    assert base["acc"] == pytest.approx(3 / 5)  # always "not referenced"
    assert base["f1"] == pytest.approx(2 * 2 / (2 * 2 + 3))  # always "referenced"
    assert base["tag_acc"] == pytest.approx(2 / 4)
    assert base["majority_label"] == 0.0
    assert nrp_baseline([{"labels": [1, 1, 0], "tags": None}])["majority_label"] == 1.0


def test_position_rule_on_hand_counted_pairs(tokenizer, vocab):
    ex = formula_example(tokenizer, (1, 4), "tag")  # E2 =B2+C2: "total" at column 4
    out = nrp.targets(ex, nrp.NrpConfig(text_rate=0.0), ctx(vocab))
    # candidates 2019 (3 columns before, referenced), 2020 (2, referenced), 2021 (1, not)
    wide = nrp_position_rule([out], window=3)  # says all three are referenced
    assert (wide["acc"], wide["f1"], wide["n"]) == (pytest.approx(2 / 3), pytest.approx(0.8), 3.0)
    near = nrp_position_rule([out], window=1)  # says only 2021 is referenced: all three wrong
    assert (near["acc"], near["f1"]) == (0.0, 0.0)


def test_fitted_position_rule_learns_offsets_from_training_facts(tokenizer, vocab):
    ex = formula_example(tokenizer, (1, 4), "tag")  # E2 =B2+C2
    out = nrp.targets(ex, nrp.NrpConfig(text_rate=0.0), ctx(vocab))
    # the training facts hold offsets 3 and 2 referenced, 1 not: the fitted rule says so
    fitted = nrp_fitted_position_rule([ex], [out])
    assert (fitted["acc"], fitted["f1"], fitted["n"]) == (1.0, 1.0, 3.0)
    # no training pairs: every offset unseen, called not referenced (the one negative is right)
    empty = nrp_fitted_position_rule([], [out])
    assert (empty["acc"], empty["f1"]) == (pytest.approx(1 / 3), 0.0)
    # clipped to offsets 1..1, the fitted rule's three offsets are one bucket with 2 votes to 1
    clipped = nrp_fitted_position_rule([ex], [out], clip=(1, 1))
    assert (clipped["acc"], clipped["f1"]) == (pytest.approx(2 / 3), pytest.approx(0.8))


def test_majority_baseline():
    values = [{"groups": [[1, [2, 3]], [13, [4, 5]]]}, {"groups": [[1, [6, 7]]]}, None]
    assert ncp_baseline(values) == {"acc": pytest.approx(2 / 3), "n": 3.0, "majority_class": 1.0}


def test_baseline_with_a_given_class_and_training_class_counts():
    values = [{"groups": [[1, [2, 3]], [13, [4, 5]]]}, {"groups": [[1, [6, 7]]]}, None]
    assert ncp_baseline(values, majority=13)["acc"] == pytest.approx(1 / 3)
    assert ncp_baseline(values, majority=7)["acc"] == 0.0
    facts = [
        FormulaTargets(cell=1, mode="tag", ncp=((13, (2, 3)), (13, (4, 5)))),
        FormulaTargets(cell=1, mode="tokens", ncp=((1, (2, 3)),) * 3),  # skipped: tokens
        FormulaTargets(cell=1, mode="value", ncp=((1, (6, 7)),)),
        None,
    ]
    assert ncp_class_counts(facts) == {13: 2, 1: 1}
    assert ncp_class_counts(facts, ncp.NcpConfig(skip_formula_tokens=False)) == {13: 2, 1: 4}


def test_position_rule_answers_the_training_majority_per_operand_shape(tokenizer):
    cells = [(1, 4), (2, 4), (3, 1), (3, 2), (3, 3), (3, 4)]
    # E2 =B2+C2, E3 =SUM(B3:D3), B4 =B2+B3, C4 =SUM(C2:C3), D4 =D2-D3, E4 =E2+E3
    train = [formula_example(tokenizer, rc, "value") for rc in cells]
    e2 = train[0]
    assert ncp_operand_shape(e2, e2.targets[FORMULA_KEY].ncp[0][1]) == (2, 1, 0, 1)
    # shapes: E2 (2, 1, 0, 1) +; E3 (2, 1, 0, 2) SUM; the four column pairs (2, 0, 1, 1)
    # are +, SUM, -, +, so that shape answers + and misses C4 and D4
    assert ncp_position_rule(train, train) == {"acc": pytest.approx(4 / 6), "n": 6.0}
    # a shape never seen in training gets the training majority (here SUM, the only class)
    assert ncp_position_rule(train[1:2], train[:2]) == {"acc": 0.5, "n": 2.0}
    tokens = [formula_example(tokenizer, (1, 4), "tokens")]  # no NCP target: not counted
    assert ncp_position_rule(train, tokens) == {"acc": 0.0, "n": 0.0}


def test_baseline():
    values = [{"op_labels": [20, 20, 8], "ref_cells": [3, 4]}, {"op_labels": [8], "ref_cells": [1]}]
    base = formula_mlm_baseline(values, cells=[10, 5])
    assert base["acc_op"] == pytest.approx(2 / 4)
    assert base["acc_ref"] == pytest.approx((2 / 10 + 1 / 5) / 3)
    assert base["acc"] == pytest.approx((2 + 2 / 10 + 1 / 5) / 7)


def test_baseline_with_a_fixed_operator():
    values = [{"op_labels": [20, 20, 8], "ref_cells": []}, {"op_labels": [8, 8], "ref_cells": []}]
    assert formula_mlm_baseline(values)["majority_op"] == 8.0
    fixed = formula_mlm_baseline(values, majority=20)
    assert fixed["acc_op"] == pytest.approx(2 / 5) and fixed["majority_op"] == 20.0
    assert formula_mlm_baseline(values, majority=3)["acc_op"] == 0.0


def test_class_counts_take_neighbour_groups_even_when_the_formula_is_shown_as_tokens():
    facts = FormulaTargets(
        cell=1, mode="tokens", ncp=((13, (2, 3)),), ncp_neighbours=((1, (4, 5)),)
    )
    assert ncp_class_counts([facts]) == {1: 1}
