"""Cell-level scores, the F1-best threshold, the halves by book key, display precision and
the answer keys' cell lists."""

from __future__ import annotations

import pytest

from fortap.audit.display import decimals, same_shown
from fortap.audit.keys import parse_a1_list
from fortap.audit.measure import NOTHING, best_thresholds, half_of, scores
from fortap.errors import FortapError


def test_scores():
    s = scores({("b", "s", 0, 0), ("b", "s", 1, 0)}, {("b", "s", 0, 0), ("b", "s", 2, 2)})
    assert (s.flagged, s.gold, s.hits) == (2, 2, 1)
    assert (s.precision, s.recall, s.f1) == (0.5, 0.5, 0.5)
    assert scores(set(), set()).f1 == 0.0


def test_best_threshold_takes_ties_together():
    gold = {("b", "s", 0, 0), ("b", "s", 1, 0)}
    scored = {("b", "s", 0, 0): 0.9, ("b", "s", 1, 0): 0.6, ("b", "s", 5, 5): 0.6,
              ("b", "s", 6, 6): 0.2}  # fmt: skip
    # 0.9: P 1, R .5 (F1 .667); 0.6: P 2/3, R 1 (F1 .8); 0.2: P .5, R 1 (F1 .667)
    assert best_thresholds({"m": scored}, gold) == {"m": 0.6}


def test_best_thresholds_per_kind_together():
    gold = {("b", "s", 0, 0), ("b", "s", 1, 1)}
    scored = {
        "m": {("b", "s", 0, 0): 0.9, ("b", "s", 2, 2): 0.8, ("b", "s", 3, 3): 0.8},
        "i": {("b", "s", 1, 1): 0.3, ("b", "s", 4, 4): 0.5},
    }
    # m at 0.9 (1 hit of 1) and i at 0.3 (1 of 2): F1 2*2/(3+2) = .8, the best pair
    assert best_thresholds(scored, gold) == {"m": 0.9, "i": 0.3}
    assert best_thresholds({"m": {("b", "s", 9, 9): 0.9}}, gold) == {"m": NOTHING}


def test_copies_of_a_book_share_a_half():
    xls = "tasi/Spreadsheet Error Dataset/Subject/financial/FinalBudget.xls"
    xlsx = "euses_excelint/subjects_xlsx/FinalBudget.xlsx"
    assert half_of(xls) == half_of(xlsx) in ("A", "B")


def test_display_precision():
    assert [decimals(f) for f in ("General", "0.00", "#,##0", "0%", "0.0%", '"$"#,##0.00_);')] \
        == [None, 2, 0, 2, 3, 2]  # fmt: skip
    assert same_shown(1234.4, 1234.0, "#,##0") and not same_shown(1234.6, 1234.0, "#,##0")
    assert same_shown(0.1 + 0.2, 0.3, "General") and not same_shown(0.31, 0.3, "General")


def test_a1_lists():
    assert parse_a1_list("D17, E6", "k") == {(16, 3), (5, 4)}
    assert parse_a1_list("Aa2", "k") == {(1, 26)}
    assert parse_a1_list("None", "k") == set()
    with pytest.raises(FortapError, match="row 3"):
        parse_a1_list("D17, 12x", "row 3")
