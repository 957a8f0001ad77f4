"""Formula-prediction metrics on hand-computed cases."""

from __future__ import annotations

import pytest

from fortap.tasks.formula_prediction.metrics import (
    Gold,
    Guess,
    error_class,
    formula_key,
    formula_metrics,
    length_bucket,
    sketch_length,
)

SUM_RANGE = ("[START]", "[SUM]", "[:]", "[RANGE]", "[RANGE]", "[END]")
DIV = ("[START]", "[/]", "[RANGE]", "[RANGE]", "[END]")
ROUND = ("[START]", "[ROUND]", "[RANGE]", "[C-NUM]", "[END]")

# =SUM(B2:B5) in B6, =B2/C2 (C2 not in the input), =ROUND(D3, 2)
GOLDS = [
    Gold(SUM_RANGE, ((1, 1), (4, 1))),
    Gold(DIV, ((1, 1), (1, 2)), reachable=False),
    Gold(ROUND, ((2, 3),)),
]


def test_formula_key_puts_addresses_in_the_range_slots():
    assert formula_key(GOLDS[0]) == ("[SUM]", "[:]", "B2", "B5")
    assert formula_key(Guess(DIV, ((1, 1), None))) == ("[/]", "B2", "<WR>")
    assert formula_key(GOLDS[2]) == ("[ROUND]", "D3", "[C-NUM]")


def test_sketch_length_counts_operators_functions_and_references():
    assert sketch_length(SUM_RANGE) == 3  # SUM and two references; ':' does not count
    assert sketch_length(ROUND) == 2  # the constant does not count
    assert [length_bucket(n) for n in (0, 1, 5, 6, 9)] == ["1", "1", "5", "6+", "6+"]


def test_error_classes():
    gold = GOLDS[0]
    assert error_class(gold, Guess(SUM_RANGE, ((1, 1), (4, 1)))) == "correct"
    assert error_class(gold, Guess(DIV, ((1, 1), (4, 1)))) == "wrong_sketch"
    assert error_class(gold, Guess(SUM_RANGE, ((1, 1), (3, 1)))) == "wrong_reference"
    assert error_class(GOLDS[1], Guess(DIV, ((1, 1), (1, 1)))) == "reference_not_in_input"
    assert error_class(gold, None) == "wrong_sketch"


def test_metrics_on_three_hand_computed_formulas():
    predictions = [
        # right at rank 1
        [Guess(SUM_RANGE, ((1, 1), (4, 1)))],
        # right sketch, second reference unreachable -> wrong; nothing better in the top 5
        [Guess(DIV, ((1, 1), (1, 1))), Guess(SUM_RANGE, ((1, 1), (1, 2)))],
        # wrong sketch first, right formula second (top-5 hit), right sketch second too
        [Guess(DIV, ((2, 3), (2, 2))), Guess(ROUND, ((2, 3),))],
    ]
    m = formula_metrics(GOLDS, predictions, k=5)
    assert m["n"] == 3
    assert m["formula_top1"] == pytest.approx(1 / 3)
    assert m["formula_top5"] == pytest.approx(2 / 3)
    assert m["sketch_top1"] == pytest.approx(2 / 3)
    assert m["sketch_top5"] == pytest.approx(1.0)
    assert m["range_acc"] == pytest.approx(1 / 2)  # of the 2 with a right top-1 sketch
    assert m["reference_acc"] == pytest.approx(3 / 4)  # B2,B5 right; B2 right, C2 missed
    assert m["reachable"] == pytest.approx(2 / 3)
    assert m["errors"] == pytest.approx(
        {"correct": 1 / 3, "wrong_sketch": 1 / 3, "reference_not_in_input": 1 / 3,
         "wrong_reference": 0.0}
    )  # fmt: skip
    assert m["by_sketch_length"]["3"] == {"n": 2, "formula_top1": 0.5}
    assert m["by_sketch_length"]["2"] == {"n": 1, "formula_top1": 0.0}


def test_top1_only_and_empty_predictions():
    m = formula_metrics(GOLDS[:1], [[]], k=1)
    assert m["formula_top1"] == 0.0 and m["formula_top1"] == m["sketch_top1"] == 0.0
    assert m["errors"]["wrong_sketch"] == 1.0
    assert m["range_acc"] == 0.0  # no right sketch: nothing to divide


def test_metrics_reject_misaligned_inputs():
    with pytest.raises(ValueError, match="3 golds but 1 predictions"):
        formula_metrics(GOLDS, [[]])
