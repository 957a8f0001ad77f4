"""Workbook tallies, the workbook bootstrap and effective workbooks, by example."""

from __future__ import annotations

import pytest

from fortap.metrics.bootstrap import Tally, bootstrap_gap, effective_books


def test_the_same_answers_give_a_zero_gap():
    same = {b: Tally(3.0, 5.0) for b in "abcd"}
    assert bootstrap_gap(same, same) == {"gap": 0.0, "low": 0.0, "high": 0.0, "books": 4.0}


def test_a_model_better_on_every_workbook_has_an_interval_above_zero():
    model = {f"b{i}": Tally(8.0 + i % 3, 10.0) for i in range(30)}
    base = {f"b{i}": Tally(5.0, 10.0) for i in range(30)}
    got = bootstrap_gap(model, base, rounds=500)
    assert got["gap"] == pytest.approx((8 * 10 + 9 * 10 + 10 * 10) / 300 - 0.5)
    assert 0 < got["low"] <= got["gap"] <= got["high"]


def test_one_large_workbook_makes_the_interval_wide():
    # the model wins by 0.1 on 20 small books and loses on one that holds most targets
    model = {f"b{i}": Tally(6.0, 10.0) for i in range(20)} | {"big": Tally(300.0, 1000.0)}
    base = {f"b{i}": Tally(5.0, 10.0) for i in range(20)} | {"big": Tally(400.0, 1000.0)}
    got = bootstrap_gap(model, base, rounds=1000, seed=1)
    assert got["gap"] == pytest.approx((20 - 100) / 1200)
    assert got["low"] < -0.05 and got["high"] > 0.05  # with or without the big book
    assert effective_books([10.0] * 20 + [1000.0]) < 1.5


def test_the_bootstrap_is_seeded_and_checks_the_targets_match():
    model = {f"b{i}": Tally(float(i % 4), 4.0) for i in range(12)}
    base = {f"b{i}": Tally(2.0, 4.0) for i in range(12)}
    assert bootstrap_gap(model, base, seed=3) == bootstrap_gap(model, base, seed=3)
    with pytest.raises(ValueError, match="'b0'"):
        bootstrap_gap(model, base | {"b0": Tally(2.0, 5.0)})


def test_effective_books_counts_equal_books_once_each():
    assert effective_books([50, 50]) == pytest.approx(2.0)
    assert effective_books([98, 1, 1]) == pytest.approx(100**2 / (98**2 + 2))
    assert effective_books([]) == 0.0


def test_per_workbook_mean_counts_each_workbook_once():
    from fortap.metrics.bootstrap import Tally, book_tallies, per_workbook_mean

    tallies = book_tallies(["big", "big", "big", "big", "small"], [1, 1, 1, 0, 0])
    assert tallies == {"big": Tally(3.0, 4.0), "small": Tally(0.0, 1.0)}
    assert per_workbook_mean(tallies) == 0.375  # (3/4 + 0/1) / 2, pooled would be 0.6


def test_conditional_tallies_count_only_targets_their_condition_holds_for():
    from fortap.metrics.bootstrap import book_tallies

    # range top-1: formula right among targets whose sketch is right; "c" has none
    books, formula, sketch = ["a", "a", "a", "b", "c"], [1, 0, 0, 1, 0], [1, 1, 0, 1, 0]
    assert book_tallies(books, formula, counts=sketch) == {
        "a": Tally(1.0, 2.0),
        "b": Tally(1.0, 1.0),
    }


def test_a_rate_pooled_and_per_workbook_with_intervals():
    from fortap.metrics.bootstrap import bootstrap_rate

    tallies = {"big": Tally(90.0, 100.0)} | {f"s{i}": Tally(0.0, 2.0) for i in range(4)}
    pooled = bootstrap_rate(tallies, rounds=500)
    mean = bootstrap_rate(tallies, per_workbook=True, rounds=500)
    assert pooled["value"] == pytest.approx(90 / 108) and mean["value"] == pytest.approx(0.9 / 5)
    assert pooled["low"] <= pooled["value"] <= pooled["high"] and pooled["books"] == 5.0
    assert mean["low"] <= mean["value"] <= mean["high"]
    assert mean["low"] == 0.0  # a draw of only the small books
    assert bootstrap_rate({}) == {"value": 0.0, "low": 0.0, "high": 0.0, "books": 0.0}


def test_the_per_workbook_gap_weighs_each_workbook_once():
    # the model wins big on one large book and loses a little on three small ones
    model = {"big": Tally(80.0, 100.0)} | {f"s{i}": Tally(1.0, 4.0) for i in range(3)}
    base = {"big": Tally(20.0, 100.0)} | {f"s{i}": Tally(2.0, 4.0) for i in range(3)}
    pooled = bootstrap_gap(model, base, rounds=500)
    mean = bootstrap_gap(model, base, rounds=500, per_workbook=True)
    assert pooled["gap"] == pytest.approx((60 - 3) / 112)
    assert mean["gap"] == pytest.approx((0.6 - 0.25 * 3) / 4)
    assert mean["low"] <= mean["gap"] <= mean["high"] and mean["low"] < 0 < pooled["gap"]
