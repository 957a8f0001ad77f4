"""Formula-prediction metrics by workbook, by example: hits tallied per workbook, range top-k
as formula hits among sketch hits, pooled and per-workbook values with intervals, gaps."""

from __future__ import annotations

import pytest

from fortap.metrics.bootstrap import Tally
from fortap.tasks.formula_prediction.metrics import Gold, Guess, formula_metrics
from fortap.tasks.formula_prediction.workbooks import (
    hit_tallies,
    metric_gap,
    metric_names,
    workbook_metrics,
)

SUM = ("[START]", "SUM", "[RANGE]", "[:]", "[RANGE]", "[END]")
PLUS = ("[START]", "[RANGE]", "+", "[RANGE]", "[END]")
GOLD = Gold(SUM, ((1, 1), (2, 1)))
RIGHT, MOVED = Guess(SUM, ((1, 1), (2, 1))), Guess(SUM, ((1, 2), (2, 2)))
OTHER = Guess(PLUS, ((1, 1), (1, 2)))
BOOKS = ["big", "big", "big", "small"]
GUESSES = [[RIGHT], [MOVED, RIGHT], [OTHER, MOVED], [OTHER]]


def test_hits_are_tallied_per_workbook_and_range_counts_right_sketches_only():
    tallies = hit_tallies(BOOKS, [GOLD] * 4, GUESSES, k=5)
    assert tuple(tallies) == metric_names(5) == (
        "formula_top1", "formula_top5", "sketch_top1", "sketch_top5", "range_top1", "range_top5")  # fmt: skip
    assert tallies["formula_top1"] == {"big": Tally(1, 3), "small": Tally(0, 1)}
    assert tallies["sketch_top5"] == {"big": Tally(3, 3), "small": Tally(0, 1)}
    assert tallies["range_top1"] == {"big": Tally(1, 2)}  # no right sketch in "small"
    assert tallies["range_top5"] == {"big": Tally(2, 3)}
    pooled = formula_metrics([GOLD] * 4, GUESSES)
    summary = workbook_metrics(tallies)
    assert summary["range_top1"]["pooled"] == pooled["range_acc"] == 0.5
    assert summary["formula_top1"]["pooled"] == pooled["formula_top1"] == 0.25
    assert summary["formula_top1"]["per_workbook"] == pytest.approx((1 / 3 + 0) / 2)
    for values in summary.values():
        assert values["pooled_low"] <= values["pooled"] <= values["pooled_high"]
        assert values["per_workbook_low"] <= values["per_workbook"] <= values["per_workbook_high"]


def test_the_gap_of_two_systems_pooled_and_per_workbook():
    model = hit_tallies(BOOKS, [GOLD] * 4, GUESSES)
    blind = hit_tallies(BOOKS, [GOLD] * 4, [[OTHER]] * 4)
    gap = metric_gap(model, blind, "sketch_top1")
    assert gap["pooled"]["gap"] == 0.5  # two of four targets
    assert gap["per_workbook"]["gap"] == pytest.approx((2 / 3 + 0) / 2)
    assert gap["pooled"]["books"] == gap["per_workbook"]["books"] == 2.0
