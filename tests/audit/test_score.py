"""The shipped audit weights: they load, weigh the facts the checks declare and no other, and a
fit recovers them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fortap.audit.auditor import AuditConfig
from fortap.audit.checks import counts, declared
from fortap.audit.findings import INCONSISTENT, KINDS, MISSING
from fortap.audit.fit import fit_weights, logistic
from fortap.audit.score import WEIGHTS_FILE, Weights, load_weights
from fortap.errors import FortapError
from fortap.suggest.api import source_names

# every fact the checks declare, by kind, but the engine's match_<source> flags
FACTS = {
    MISSING: {"run_share", "hole", "run_formulas", "run_cells", "fix_equal", "top_equal",
              "lower_equal", "weak_equal", "match_score", "checked", "run_end", "total_line",
              "copy_block"},
    INCONSISTENT: {"block_share", "interior", "odd", "run_cells", "slip", "fix_differs",
                   "dropped", "stops_short", "short_below", "blank_ends", "left_out",
                   "other_function", "constant_for_ref", "constant_is_value", "other_constant",
                   "anchoring"},
}  # fmt: skip


def test_shipped_weights_name_the_facts():
    w = load_weights()
    assert set(w.coef) == set(w.bias) == set(KINDS)
    flags = {f"match_{s}" for s in source_names()}
    for kind in KINDS:
        assert set(declared()[kind]) == FACTS[kind] | (flags if kind == MISSING else set())
        assert set(w.coef[kind]) == set(declared()[kind]), kind  # a weight for each, no other
    assert w.coef[MISSING]["match_model"] == 0.0  # no model matched where they were fitted
    assert set(w.thresholds) == set(KINDS) and all(0.0 < t < 1.0 for t in w.thresholds.values())
    assert AuditConfig().min_score is None and AuditConfig().cutoff() == w.thresholds
    assert AuditConfig(min_score=0.3).cutoff() == dict.fromkeys(KINDS, 0.3)
    assert "TASI" in w.fitted_on
    assert json.loads(WEIGHTS_FILE.read_text())["log1p"] == sorted(counts())
    assert counts() == {"run_formulas", "run_cells", "odd", "left_out"}
    assert 0.0 < w.base_rate < w.thresholds[MISSING]  # a bare typed number is never flagged


def test_score_is_the_logistic_of_the_facts():
    w = Weights(
        {MISSING: {"hole": 2.0, "run_cells": 1.0}, INCONSISTENT: {}},
        {MISSING: -1.0, INCONSISTENT: 0.0},
        {MISSING: 0.5, INCONSISTENT: 0.5},
    )
    z = -1.0 + 2.0 * 1.0 + np.log1p(3.0)  # run_cells is a count: log1p; "odd" has no weight
    assert w.score(MISSING, {"hole": 1.0, "run_cells": 3.0, "odd": 9.0}) == round(
        1 / (1 + np.exp(-z)), 6
    )
    assert w.score(INCONSISTENT, {"hole": 1.0}) == 0.5


def test_bad_weights_file(tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text(json.dumps({"thresholds": {MISSING: 0.4}, "log1p": sorted(counts()), "bias": {MISSING: 0.0},
                               "base_rate": 0.1, "weights": {MISSING: {}}}))  # fmt: skip
    with pytest.raises(FortapError, match="w.json: not audit weights"):
        load_weights(bad)


def test_weights_whose_facts_differ_from_the_declared_ones_are_refused(tmp_path):
    doc = json.loads(WEIGHTS_FILE.read_text())
    doc["weights"][MISSING]["match_typo"] = 1.0  # a fact no check declares
    del doc["weights"][INCONSISTENT]["slip"]  # and a declared one without a weight
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(FortapError) as err:
        load_weights(path)
    assert str(err.value) == (
        f"{path}: its facts are not those the audit's checks declare (missing-formula: not "
        "declared by any check: match_typo; inconsistent-formula: missing slip); fit the "
        "weights again with `fortap finetune formula-audit`"
    )
    # read as the file has them, for the scores of a fit's findings (`refit.finetune`)
    assert load_weights(path, strict=False).coef[MISSING]["match_typo"] == 1.0
    counted = tmp_path / "counted.json"  # a count read as a plain value
    counted.write_text(json.dumps(json.loads(WEIGHTS_FILE.read_text()) | {"log1p": ["odd"]}))
    want = r"declare \(counts odd, declared as counts left_out, odd, run_cells, run_formulas\)"
    with pytest.raises(FortapError, match=want):
        load_weights(counted)


def test_a_fit_weighs_every_declared_fact_and_refuses_others():
    rows = [(MISSING, {"hole": float(i % 2), "checked": 1.0}) for i in range(40)]
    labels = [i % 2 == 1 for i in range(40)]
    names = {kind: set(facts) for kind, facts in declared().items()}
    w = fit_weights(rows, labels, "toy", declared=names)
    assert {k: set(v) for k, v in w.coef.items()} == names
    assert w.coef[MISSING]["hole"] > 1.0 and w.coef[MISSING]["top_equal"] == 0.0  # no row has it
    assert w.coef == Weights.from_json(w.to_json()).coef  # what the fit writes loads
    alone = fit_weights(rows, labels, "toy")  # over the facts the rows carry, the same weights
    assert alone.coef[MISSING] == {n: w.coef[MISSING][n] for n in ("checked", "hole")}
    with pytest.raises(FortapError, match="missing-formula findings carry facts no check "
                                          "declares: holes"):  # fmt: skip
        fit_weights([(MISSING, {"holes": 1.0})] * 2, [True, False], declared=names)


def test_bare_typed_numbers_score_their_base_rate():
    # 40 numbers in runs with formulas (half of them key cells) and 50 that nothing points at
    # (checked or not, 5 key cells): the bare ones are no rows of the model, they score 5/50
    rows = [(MISSING, {"hole": float(i % 2), "checked": 1.0}) for i in range(40)]
    rows += [(MISSING, {"checked": float(i % 2), "run_end": float(i % 3 == 0)}) for i in range(50)]
    labels = [i % 2 == 1 for i in range(40)] + [i < 5 for i in range(50)]
    w = fit_weights(rows, labels, "toy")
    assert w.base_rate == 0.1 and set(w.coef[MISSING]) == {"hole", "checked"}
    assert w.score(MISSING, {"checked": 0.0, "run_end": 1.0}) == w.score(MISSING, {}) == 0.1
    assert w.score(MISSING, {"hole": 1.0, "checked": 1.0}) > 0.8
    assert w.score(INCONSISTENT, {}) == 0.5  # not a typed number: the model's bias (0 here)
    with pytest.raises(FortapError, match="base_rate 2.0 is not in"):
        Weights.from_json(w.to_json() | {"base_rate": 2.0})
    # bare numbers more often key cells than any flagged group: still never flagged
    rows = [(MISSING, {"hole": 1.0})] * 10 + [(MISSING, {"checked": 1.0})] * 10
    w = fit_weights(rows, [i < 3 for i in range(10)] + [i < 8 for i in range(10)], "toy")
    assert w.base_rate == 0.8 and w.thresholds[MISSING] > w.score(MISSING, {"checked": 1.0})


def test_newton_fit_recovers_the_weights():
    rng = np.random.default_rng(0)
    x = np.c_[np.ones(4000), rng.normal(size=(4000, 2))]  # (N, 3)
    y = (rng.random(4000) < 1 / (1 + np.exp(-(x @ [0.5, 2.0, -1.0])))).astype(float)  # (N,)
    assert np.allclose(logistic(x, y, c=1e6), [0.5, 2.0, -1.0], atol=0.15)


def test_fit_weights_and_threshold():
    rows = [(MISSING, {"hole": float(i % 2)}) for i in range(40)] + [
        (INCONSISTENT, {"odd": 1.0}) for _ in range(10)
    ]
    labels = [i % 2 == 1 for i in range(40)] + [False] * 10
    w = fit_weights(rows, labels, "toy")
    assert set(w.coef[MISSING]) == {"hole"} and set(w.coef[INCONSISTENT]) == {"odd"}
    assert w.score(MISSING, {"hole": 1.0}) > 0.8 > 0.2 > w.score(MISSING, {"hole": 0.0})
    # every inconsistent row is a false alarm: that kind is best left out (a threshold above 1)
    assert w.thresholds[INCONSISTENT] > 1.0
    assert (
        w.score(MISSING, {"hole": 0.0}) < w.thresholds[MISSING] <= w.score(MISSING, {"hole": 1.0})
    )


def test_thresholds_count_the_key_cells_no_finding_stands_for():
    # 10 sure hits at 0.9 and 10 long shots at 0.5 (2 hits): with no key cell missed, flagging
    # only the sure ones is best (F1 20/22 against 24/32); with 40 missed besides, the long
    # shots pay (24/72 against 20/62)
    rows = [(MISSING, {"a": 1.0})] * 10 + [(MISSING, {"a": 0.0})] * 10
    labels = [True] * 10 + [i < 2 for i in range(10)]
    w = Weights({MISSING: {"a": 2.197225}, INCONSISTENT: {}}, {MISSING: 0.0, INCONSISTENT: 0.0},
                {MISSING: 0.0, INCONSISTENT: 0.0})  # fmt: skip
    assert (w.score(MISSING, {"a": 1.0}), w.score(MISSING, {"a": 0.0})) == (0.9, 0.5)
    from fortap.audit.measure import best_thresholds

    scored = {MISSING: {i: w.score(*row) for i, row in enumerate(rows)}, INCONSISTENT: {}}
    gold = {i for i, label in enumerate(labels) if label}
    assert best_thresholds(scored, gold)[MISSING] == 0.9
    assert best_thresholds(scored, gold | {-1 - j for j in range(40)})[MISSING] == 0.5
