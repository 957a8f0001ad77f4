"""`bench/pretrain_seeds.py` on a literal runs folder: per-encoder scores, the gaps paired by
seed, and their t-intervals over seeds."""

from __future__ import annotations

import json

import numpy as np
import pytest
from bench.pretrain_seeds import by_recipe, encoder_scores, rows_and_gaps

from fortap.metrics.bootstrap import t_interval


def test_t_interval_of_known_values():
    mean, low, high = t_interval([1.0, 2.0, 3.0])
    assert mean == 2.0
    assert high - mean == pytest.approx(4.302653 * 1.0 / np.sqrt(3), rel=1e-5)  # t(0.975, 2)
    assert t_interval([0.5])[1:] == (float("-inf"), float("inf"))


def write_runs(root, qa: dict[str, float], diagonal: dict[str, int]) -> None:
    """Each encoder's 5 cell-type folds (a 6x6 confusion with `diagonal` right per class) and its
    QA test accuracy."""
    for name, right in diagonal.items():
        for k in range(5):
            conf = np.eye(6, dtype=int) * right + 1
            folder = root / "cell_types" / name / f"fold-{k}"
            folder.mkdir(parents=True)
            (folder / "metrics.json").write_text(json.dumps({"files": {"f": conf.tolist()}}))
    for name, acc in qa.items():
        folder = root / "table_qa" / name
        folder.mkdir(parents=True)
        systems = {"test": {"model": {"accuracy": acc}}, "dev": {"model": {"accuracy": acc}}}
        (folder / "metrics.json").write_text(json.dumps({"systems": systems}))


def test_gaps_pair_the_recipes_by_seed(tmp_path):
    qa = {"minilm": 0.30, "tuta-s0": 0.40, "tuta-s1": 0.42, "tuta-s2": 0.41, "fortap-s0": 0.43,
          "fortap-s1": 0.46, "fortap-s2": 0.445}  # fmt: skip
    write_runs(tmp_path, qa, {"minilm": 5, "tuta-s0": 9, "tuta-s1": 9, "fortap-s0": 9})
    scores = encoder_scores(tmp_path)
    assert set(scores["fortap-s1"]) == {"qa_test", "qa_dev"}  # no cell-type folds: no CT score
    recipes = by_recipe(scores)
    assert sorted(recipes) == ["fortap", "minilm", "tuta"] and sorted(recipes["tuta"]) == [0, 1, 2]
    rows, gaps = rows_and_gaps(recipes)
    qa_gap = next(g for g in gaps if g["gap"] == "fortap − tuta" and g["metric"] == "qa_test")
    assert qa_gap["diffs"] == pytest.approx([0.03, 0.04, 0.035]) and qa_gap["seeds"] == 3
    assert qa_gap["resolved"]  # every seed +, and close: the interval stays above 0
    two = rows_and_gaps(by_recipe({k: v for k, v in scores.items() if not k.endswith("s2")}))[1]
    assert not next(g for g in two if g["metric"] == "qa_test")["resolved"]  # t(0.975, 1) = 12.7
    ct = next(g for g in gaps if g["gap"] == "fortap − tuta" and g["metric"] == "ct_macro_f1")
    assert ct["seeds"] == 1 and not ct["resolved"]  # one seed: no interval
    vs_minilm = next(g for g in gaps if g["gap"] == "tuta − minilm" and g["metric"] == "qa_test")
    assert vs_minilm["diffs"] == pytest.approx(
        [0.10, 0.12, 0.11]
    )  # each seed against MiniLM's one run


def test_the_random_encoder_is_a_baseline_like_minilm(tmp_path):
    write_runs(tmp_path, {"random": 0.20, "tuta-s0": 0.25, "tuta-s1": 0.27}, {})
    gaps = rows_and_gaps(by_recipe(encoder_scores(tmp_path)))[1]
    vs_random = next(g for g in gaps if g["gap"] == "tuta − random" and g["metric"] == "qa_test")
    assert vs_random["diffs"] == pytest.approx([0.05, 0.07]) and not vs_random["baseline_noise"]
