"""The acceptance gaps of `bench/formula_prediction.py`: the best neural row against the sketch
prior (sketch top-1) and AutoSum (formula top-1), pooled and per workbook, met only when the
gap reaches the target and its interval lies above 0."""

from __future__ import annotations

import pytest
from bench.formula_prediction import AUTOSUM, BASELINE, PRIOR, gap_targets

from fortap.metrics.bootstrap import Tally


def tallies(formula: float, sketch: float, books: int = 20, n: float = 10.0) -> dict:
    return {"formula_top1": {f"b{i}": Tally(formula * n, n) for i in range(books)},
            "sketch_top1": {f"b{i}": Tally(sketch * n, n) for i in range(books)}}  # fmt: skip


def test_gaps_are_measured_for_the_best_neural_row_against_its_own_prior():
    rows = [{"system": BASELINE, "setting": "full", "formula_top1": 0.2},
            {"system": BASELINE, "setting": "20%", "formula_top1": 0.1}]  # fmt: skip
    found = {(BASELINE, "full"): tallies(0.2, 0.4), (BASELINE, "20%"): tallies(0.1, 0.2),
             (PRIOR, "full"): tallies(0.0, 0.25), (PRIOR, "20%"): tallies(0.0, 0.3),
             (AUTOSUM, "-"): tallies(0.17, 0.2)}  # fmt: skip
    goals = gap_targets(rows, found)
    assert len(goals) == 4 and all("(no pretraining (MiniLM), full)" in g["name"] for g in goals)
    prior, _, auto, _ = goals
    assert prior["value"] == pytest.approx(0.4 - 0.25) and prior["target"] == 0.10
    assert prior["met"]
    # every workbook the same gap: the interval is the gap itself, above 0, but 3 < 5 points
    assert auto["low"] == pytest.approx(auto["value"]) == auto["high"] == pytest.approx(0.03)
    assert not auto["met"]
    assert gap_targets([], found) == []


def test_a_gap_whose_interval_reaches_zero_is_not_met():
    rows = [{"system": BASELINE, "setting": "full", "formula_top1": 0.3}]
    model = tallies(0.3, 0.5)
    model["formula_top1"] |= {"big": Tally(0.0, 500.0)}  # one large workbook it gets wrong
    base = tallies(0.0, 0.2)
    base["formula_top1"] |= {"big": Tally(250.0, 500.0)}
    found = {(BASELINE, "full"): model, (PRIOR, "full"): tallies(0.0, 0.2), (AUTOSUM, "-"): base}
    auto_pooled, auto_book = gap_targets(rows, found)[2:]
    assert auto_book["value"] >= 0.05 and auto_book["low"] > 0 and auto_book["met"]
    assert auto_pooled["low"] < 0 and not auto_pooled["met"]
