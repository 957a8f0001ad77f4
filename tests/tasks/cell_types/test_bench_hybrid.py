"""`bench/cell_types.py --hybrid`: which gaps a hybrid reports, the bar it is held to, and a
cache that keeps every fold scored so a rerun computes only the ones missing."""

from __future__ import annotations

import json

import pytest
from bench.cell_types import BOOSTED, SHIP_TARGETS, gap_row, summarise

from fortap.tasks.cell_types.metrics import confusion
from helpers import hybrid_rows
from helpers.hybrid_rows import bar_targets, boosted_choices, hybrid_folds, hybrid_pairs

ALL = [0, 1, 2, 3, 4, 5]  # every class once
PERFECT = {"a.xls": confusion(ALL, ALL).tolist()}
MISSED = {"a.xls": confusion(ALL, [0, 1, 2, 3, 4, 2]).tolist()}


def test_a_hybrid_is_compared_with_the_boosted_model_its_states_and_its_fine_tune():
    known = [BOOSTED, "hybrid fortap-small", "states fortap-small", "fortap-s0", "hybrid random"]
    assert hybrid_pairs(["fortap-small", "random"], BOOSTED, known) == [
        ("hybrid fortap-small", BOOSTED), ("hybrid fortap-small", "states fortap-small"),
        ("hybrid fortap-small", "fortap-s0"), ("states fortap-small", "fortap-s0"),
        ("hybrid fortap-small", "hybrid random"), ("hybrid random", BOOSTED),
    ]  # fmt: skip


def test_fixed_rows_take_the_boosted_models_choice_of_each_fold(tmp_path):
    assert hybrid_pairs(["e"], BOOSTED, [BOOSTED, "hybrid-fx e", "states-fx e"], fixed=True) == [
        ("hybrid-fx e", BOOSTED), ("hybrid-fx e", "states-fx e")
    ]  # fmt: skip
    path = tmp_path / "baselines.choices.json"
    rows = [{"fold": k, "setting": {"num_leaves": 15}, "rounds": 25 * (k + 1)} for k in range(5)]
    path.write_text(json.dumps(rows[::-1]))
    assert [c.rounds for c in boosted_choices(path)] == [25, 50, 75, 100, 125]
    path.write_text(json.dumps(rows[:4]))
    with pytest.raises(SystemExit, match="five folds"):
        boosted_choices(path)


def test_a_hybrid_must_reach_the_bar_and_beat_the_boosted_model():
    for hybrid, met in ((PERFECT, True), (MISSED, False)):
        folds = {
            "hybrid e": dict.fromkeys(range(5), hybrid),
            BOOSTED: dict.fromkeys(range(5), MISSED),
        }
        systems = {name: summarise(name, by_fold) for name, by_fold in folds.items()}
        gap = gap_row("hybrid e", BOOSTED, systems, folds)
        rows = bar_targets(systems["hybrid e"], [gap], BOOSTED, SHIP_TARGETS)
        assert [(r["target"], r["met"]) for r in rows] == [
            (0.87, met),
            (0.62, met),
            (0.0, met),
            (0.0, met),
        ]


def test_the_cache_keeps_each_fold_and_a_rerun_computes_only_the_missing(tmp_path, monkeypatch):
    cache = tmp_path / "hybrid.json"
    cache.write_text(json.dumps({"hybrid e": {str(k): PERFECT for k in range(5)}}))
    asked = []

    class Choice:
        setting, rounds, tried = {"num_leaves": 15}, 7, []

    def fake_hybrid(train, test, data, states, with_features, jobs, choice):
        asked.append(with_features)
        return [], Choice()

    monkeypatch.setattr(hybrid_rows, "read_saus", lambda folder: [])
    monkeypatch.setattr(hybrid_rows, "load_folds", lambda: [[]] * 5)
    monkeypatch.setattr(hybrid_rows, "fold_sides", lambda sheets, folds, k: ([], []))
    monkeypatch.setattr(hybrid_rows, "encode", lambda encoder, folder, saus: tmp_path / "e.npz")
    monkeypatch.setattr(hybrid_rows, "hybrid", fake_hybrid)
    monkeypatch.setattr("fortap.tasks.cell_types.states.load_states", lambda path: {})
    assert hybrid_folds(["e"], tmp_path, cache, cached_only=True) == {
        "hybrid e": dict.fromkeys(range(5), PERFECT)
    } and asked == []  # fmt: skip
    out = hybrid_folds(["e"], tmp_path, cache)
    assert asked == [False] * 5  # the states-alone row only
    assert out["hybrid e"][3] == PERFECT and out["states e"] == dict.fromkeys(range(5), {})
    assert json.loads(cache.read_text())["states e"]["4"] == {}
    assert len(json.loads(hybrid_rows.choices_file(cache).read_text())) == 5


def test_rows_of_an_encoder_whose_weights_changed_are_dropped(tmp_path, monkeypatch):
    cache = tmp_path / "hybrid.json"
    rows = {str(k): PERFECT for k in range(5)}
    cache.write_text(json.dumps({"hybrid e": rows, "hybrid f": rows}))
    cache.with_suffix(".encoders.json").write_text(json.dumps({"e": "old", "f": "same"}))
    monkeypatch.setattr(
        hybrid_rows, "fingerprint", lambda encoder: {"e": "new"}.get(encoder, "same")
    )
    out = hybrid_folds(["e", "f"], tmp_path, cache, cached_only=True)
    assert "hybrid e" not in out and out["hybrid f"] == dict.fromkeys(range(5), PERFECT)
