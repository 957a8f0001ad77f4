"""`bench/cell_types.py` on literal fold results: the summary, the paired gaps and the spread rule,
and collecting finished fold runs."""

from __future__ import annotations

import json

import numpy as np
from bench.cell_types import gap_row, recipes, run_folds, summarise

from fortap.tasks.cell_types.metrics import confusion

PERFECT = {
    "a.xls": confusion([2, 5, 3], [2, 5, 3]).tolist(),
    "b.xls": confusion([2, 4], [2, 4]).tolist(),
}
MISSED = {
    "a.xls": confusion([2, 5, 3], [2, 2, 3]).tolist(),
    "b.xls": confusion([2, 4], [2, 4]).tolist(),
}


def test_summary_and_gaps_over_shared_folds():
    folds = {"good": {0: PERFECT, 1: PERFECT}, "bad": {0: MISSED, 1: PERFECT}, "one": {1: MISSED}}
    systems = {name: summarise(name, by_fold) for name, by_fold in folds.items()}
    assert (
        systems["good"]["mean"]["derived_f1"] == 1.0 and systems["good"]["std"]["macro_f1"] == 0.0
    )
    assert systems["bad"]["per_fold"][0]["derived_f1"] == 0.0
    assert systems["bad"]["mean"]["derived_f1"] == 0.5
    gap = gap_row("good", "bad", systems, folds)
    assert gap["folds"] == [0, 1] and gap["derived_f1"]["gap"] == 0.5
    assert gap["derived_f1"]["per_fold"] == [1.0, 0.0]
    assert gap["derived_f1"]["spread"] == 0.5  # bad's derived F1 is 0 and 1 over the two folds
    assert gap["derived_f1"]["exceeds_spread"] is False  # 0.5 is not larger than 0.5
    assert gap_row("good", "one", systems, folds)["derived_f1"]["exceeds_spread"] is None


def test_run_folds_collects_only_finished_runs(tmp_path):
    (tmp_path / "minilm" / "fold-3").mkdir(parents=True)
    (tmp_path / "minilm" / "fold-3" / "metrics.json").write_text(json.dumps({"files": PERFECT}))
    (tmp_path / "minilm" / "fold-4" / "training").mkdir(parents=True)  # still training
    assert run_folds(tmp_path) == {"minilm": {3: PERFECT}}


def _run(out, folds, formulas=None):
    out.mkdir()
    record = {"files_by_fold": folds}
    if formulas:
        record["formulas"] = formulas
    (out / "metrics.json").write_text(json.dumps(record))
    return out


def test_recipes_compare_runs_on_saus_and_the_set_and_hold_the_shipped_one_to_targets(tmp_path):
    def set_split(files):
        from fortap.tasks.cell_types.metrics import file_interval, scores

        arrays = {f: np.asarray(c) for f, c in files.items()}
        s = scores(sum(arrays.values()))
        return {"macro_f1": s["macro_f1"], "derived_f1": s["derived_f1"], "cells": s["cells"],
                "interval": file_interval([arrays], 50), "files": files,
                "by_source": {"src": {"share": 1.0, "derived_f1": s["derived_f1"]}}}  # fmt: skip

    today = _run(tmp_path / "today", [MISSED, MISSED])
    ship = _run(tmp_path / "ship", [PERFECT, PERFECT], {"test": set_split(PERFECT)})
    rows, targets = recipes(f"today={today},ship={ship}", "ship")
    assert [r["recipe"] for r in rows] == ["today", "ship"]
    assert rows[1]["gaps"]["saus"]["derived_f1"]["gap"] == 1.0  # 1.0 against 0.0, fold by fold
    assert rows[1]["set"]["test"]["derived_f1"] == 1.0 and not rows[0]["set"]
    assert {t["name"]: t["met"] for t in targets} == {
        "saus macro_f1 (ship)": False, "saus derived_f1 (ship)": True,  # two classes absent
        "set test derived_f1 (ship)": True}  # fmt: skip
    _, targets = recipes(f"today={today},ship={ship}", "today")  # no test split scored: not met
    assert not any(t["met"] for t in targets)
