"""A reference for `bench/audit.py`: the findings' facts weighted by a logistic regression
fitted on the other half of the TASI key, beside the hand weights of `fortap.audit.score`.

It answers how much of the gap to a checker is the weights' and how much the evidence's. Per
half H: fit on the findings of the other half (label: the place is in the key; the kind and
every fact as features, counts as log1p), choose the F1-best threshold there, and report H.
Nothing here ships: `fortap audit` scores with `score.WEIGHTS`.
"""

from __future__ import annotations

import math

import numpy as np

from fortap.audit.evaluate import Scored, gold_of
from fortap.audit.findings import KINDS
from fortap.audit.keys import KeySheet
from fortap.audit.measure import HALVES, best_threshold, half_of, scores

COUNTS = ("run_formulas", "run_cells", "odd")  # facts that are counts, not shares or flags


def _features(found: list[Scored]) -> tuple[list[str], np.ndarray]:
    names = sorted({k for s in found for k, _ in s.facts})
    rows = np.zeros((len(found), len(names) + len(KINDS)), np.float64)  # (N, F)
    at = {n: i for i, n in enumerate(names)}
    for j, s in enumerate(found):
        for k, v in s.facts:
            rows[j, at[k]] = math.log1p(v) if k in COUNTS else v
        rows[j, len(names) + KINDS.index(s.kind)] = 1.0
    return names, rows


def fitted_metrics(key: list[KeySheet], found: list[Scored]) -> dict:
    """Held-out scores with the weights and threshold fitted on the other half."""
    from sklearn.linear_model import LogisticRegression

    gold = gold_of(key)
    _, x = _features(found)
    y = np.array([s.place in gold for s in found], np.int64)
    half = np.array([half_of(s.place[0]) for s in found])
    flagged, out = set(), {}
    for h in HALVES:
        train, test = half != h, half == h
        model = LogisticRegression(max_iter=2000, C=1.0).fit(x[train], y[train])
        p = model.predict_proba(x)[:, 1]  # (N,)
        fit_scores = {found[i].place: p[i] for i in np.flatnonzero(train)}
        cut = best_threshold(fit_scores, {g for g in gold if half_of(g[0]) != h})
        mine = {found[i].place for i in np.flatnonzero(test) if p[i] >= cut}
        flagged |= mine
        part = {g for g in gold if half_of(g[0]) == h}
        out[h] = {"threshold": round(float(cut), 4), **scores(mine, part).to_json()}
    out["held-out"] = scores(flagged, gold).to_json()
    return out
