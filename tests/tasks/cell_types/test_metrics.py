"""Scores from literal predictions: confusion, per-class and macro F1, and paired gaps."""

from __future__ import annotations

import numpy as np
import pytest

from fortap.tasks.cell_types.metrics import confusion, file_interval, paired_gap, scores


def test_scores_of_a_literal_prediction():
    # classes: 2 (data) x3, 5 (derived) x2, 3 (left attribute) x1
    conf = confusion([2, 2, 2, 5, 5, 3], [2, 2, 5, 5, 2, 3])
    assert conf[2].tolist() == [0, 0, 2, 0, 0, 1] and conf[5, 5] == 1
    s = scores(conf)
    assert s["per_class"]["data"] == pytest.approx(4 / 6)  # tp 2, fp 1, fn 1
    assert s["derived_f1"] == pytest.approx(2 / 4)  # tp 1, fp 1, fn 1
    assert s["per_class"]["left_attribute"] == 1.0 and s["per_class"]["metadata"] == 0.0
    assert s["macro_f1"] == pytest.approx((4 / 6 + 0.5 + 1.0) / 6)
    assert s["cells"] == 6 and s["accuracy"] == pytest.approx(4 / 6)


def test_paired_gap_is_zero_for_a_system_against_itself_and_signed_otherwise():
    good = {"a": confusion([2, 5], [2, 5]), "b": confusion([2, 3], [2, 3])}
    bad = {"a": confusion([2, 5], [2, 2]), "b": confusion([2, 3], [2, 2])}
    same = paired_gap([good], [good], rounds=50)
    assert same["macro_f1"] == {"gap": 0.0, "low": 0.0, "high": 0.0}
    gap = paired_gap([good, good], [bad, bad], rounds=50)
    assert gap["derived_f1"]["gap"] == 1.0 and gap["macro_f1"]["gap"] > 0
    low, high = file_interval([good], rounds=50)["macro_f1"]
    assert low <= scores(sum(good.values()))["macro_f1"] <= high


def test_paired_gap_refuses_systems_scored_on_different_cells():
    with pytest.raises(ValueError, match="file 'a'"):
        paired_gap([{"a": confusion([2], [2])}], [{"a": confusion([3], [3])}], rounds=5)
    assert np.asarray(confusion([], [])).sum() == 0
