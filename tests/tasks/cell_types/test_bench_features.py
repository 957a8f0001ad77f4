"""`bench/cell_types.py` on the systems of extracted features: which gaps it reports, the
shipped-recipe bar, and a cache without them gaining them."""

from __future__ import annotations

import json

from bench.cell_types import BOOSTED, FOREST, X_FOREST, feature_pairs, gap_row, ship_rows, summarise

from bench import cell_types as bench
from fortap.tasks.cell_types.metrics import confusion

ALL = [0, 1, 2, 3, 4, 5]  # every class once
PERFECT = {"a.xls": confusion(ALL, ALL).tolist(), "b.xls": confusion([2], [2]).tolist()}
MISSED = {
    "a.xls": confusion(ALL, [0, 1, 2, 3, 4, 2]).tolist(),
    "b.xls": confusion([2], [2]).tolist(),
}


def test_feature_systems_are_compared_with_the_forest_on_saus_features():
    assert feature_pairs([FOREST, X_FOREST, BOOSTED, "minilm"]) == [
        (X_FOREST, FOREST), (BOOSTED, FOREST), (BOOSTED, X_FOREST)
    ]  # fmt: skip
    assert feature_pairs([FOREST, BOOSTED]) == [(BOOSTED, FOREST)]


def test_the_boosted_model_is_held_to_the_shipped_bar():
    for boosted, met in ((PERFECT, True), (MISSED, False)):
        folds = {BOOSTED: dict.fromkeys(range(5), boosted), FOREST: dict.fromkeys(range(5), MISSED)}
        systems = {name: summarise(name, by_fold) for name, by_fold in folds.items()}
        gap = gap_row(BOOSTED, FOREST, systems, folds)
        rows = ship_rows(systems[BOOSTED], [gap])
        assert [(r["target"], r["met"]) for r in rows] == [(0.87, met), (0.62, met), (0.0, met)]
        assert rows[2]["value"] == gap["macro_f1"]["low"]


def test_a_cache_without_the_feature_systems_computes_only_those(tmp_path, monkeypatch):
    cache = tmp_path / "baselines.json"
    cache.write_text(json.dumps({name: [PERFECT] for name in ("majority", "forest", FOREST)}))
    asked = []

    def fake_run(name, train, test, data, jobs):
        asked.append(name)
        return []

    class Choice:
        setting, rounds, tried = {"num_leaves": 15}, 7, []

    monkeypatch.setattr(bench, "read_saus", lambda folder: [])
    monkeypatch.setattr(bench, "load_folds", lambda: [[]])
    monkeypatch.setattr(bench, "run_baseline", fake_run)
    monkeypatch.setattr(bench, "boosted", lambda *a, **k: ([], Choice()))
    out = bench.baseline_folds(cache, refresh=False)
    assert asked == [X_FOREST] and out[BOOSTED] == [{}] and out["forest"] == [PERFECT]
    assert json.loads(bench.choices_file(cache).read_text())[0]["rounds"] == 7
