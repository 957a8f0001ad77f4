"""Fitting `score.Weights`: an L2-penalised logistic regression per finding kind, in numpy.

Each finding of a kind is a row: its facts as `score.feature` reads them (0 where absent);
label 1 when its cell is in the answer key. The weights of a kind are over the facts its
checks declare (`checks.declared`, what `score.load_weights` accepts): a declared fact no row
carries weighs 0, as its column of zeros would under the penalty, and is left out of the solve
(so the others are those of the same fit without it, to the last digit). Bare typed numbers (`score.is_bare`: no hole, no
matching candidate) are no rows of the model: their score is the share of key cells among them
(`Weights.base_rate`). The loss is the summed log loss plus
||w||^2 / (2 C) on the fact weights (the intercept is free), minimised by Newton's method.
One threshold per kind, chosen together for the best F1 on the same findings
(`measure.best_thresholds`), comes with the weights: the two kinds' scores are fitted apart, and
a threshold shared by both was set by the more numerous missing formulas (held out on TASI, per
kind: F1 0.441 against 0.413 with one).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

from fortap.audit import checks
from fortap.audit.findings import KINDS, MISSING
from fortap.audit.measure import best_thresholds
from fortap.audit.score import Weights, feature, is_bare
from fortap.errors import FortapError

Row = tuple[str, dict[str, float]]  # a finding's kind and facts


def design(rows: Sequence[dict[str, float]], names: Sequence[str],
           log1p: Collection[str]) -> np.ndarray:  # fmt: skip
    """(N, 1 + F): an intercept column, then the named facts (0 where absent; the `log1p` ones
    as log(1 + x))."""
    at = {n: i for i, n in enumerate(names)}
    x = np.zeros((len(rows), 1 + len(names)), np.float64)  # (N, 1+F)
    x[:, 0] = 1.0
    for j, facts in enumerate(rows):
        for k, v in facts.items():
            if k in at:
                x[j, 1 + at[k]] = feature(k, v, log1p)
    return x


def logistic(x: np.ndarray, y: np.ndarray, c: float = 1.0, steps: int = 100) -> np.ndarray:
    """Weights (1+F+K,) minimising log loss + ||w[1:]||^2 / (2c), by Newton's method."""
    w = np.zeros(x.shape[1])  # (D,)
    penalty = np.full(x.shape[1], 1.0 / c)  # (D,)
    penalty[0] = 1e-8  # the intercept is free (a trace keeps the Hessian invertible)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))  # (N,)
        grad = x.T @ (p - y) + penalty * w  # (D,)
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty)  # (D, D)
        step = np.linalg.solve(hess, grad)  # (D,)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def fit_weights(rows: Sequence[Row], labels: Sequence[bool], fitted_on: str = "",
                c: float = 1.0, missed: int = 0,
                declared: Mapping[str, Collection[str]] | None = None) -> Weights:  # fmt: skip
    """Per kind, weights over the facts `declared[kind]` (the checks' declarations,
    `checks.declared`; None: every fact its rows carry), a row's fact not among them refused by
    name; then the F1-best thresholds. `missed`: key cells no row stands for (no finding at
    all), which the F1 counts as missed whatever the thresholds; they lower the thresholds that
    pay."""
    coef, bias, log1p = {}, {}, checks.counts()
    bare = [label for (k, facts), label in zip(rows, labels, strict=True) if is_bare(k, facts)]
    rate = sum(bare) / len(bare) if bare else 0.0
    for kind in KINDS:
        mine = [(facts, label) for (k, facts), label in zip(rows, labels, strict=True)
                if k == kind and not is_bare(k, facts)]  # fmt: skip
        names = sorted({n for facts, _ in mine for n in facts})
        every = names if declared is None else sorted(declared[kind])
        if unknown := sorted(set(names) - set(every)):
            raise FortapError(f"{kind} findings carry facts no check declares: "
                              f"{', '.join(unknown)}")  # fmt: skip
        y = np.array([label for _, label in mine], np.float64)  # (N_kind,)
        w = logistic(design([facts for facts, _ in mine], names, log1p), y, c)  # (1+F,)
        bias[kind] = float(w[0])
        fitted = dict(zip(names, w[1:].tolist(), strict=True))
        coef[kind] = {n: float(fitted.get(n, 0.0)) for n in every}
    model = Weights(coef, bias, dict.fromkeys(KINDS, 0.0), fitted_on, rate, log1p)
    # a bare number is never flagged: it is no candidate of a threshold, and a key cell among
    # them counts as missed
    scored = {k: {i: model.score(kind, facts) for i, (kind, facts) in enumerate(rows)
                  if kind == k and not is_bare(kind, facts)} for k in KINDS}  # fmt: skip
    gold = {i for i, label in enumerate(labels) if label} | {-1 - j for j in range(missed)}
    cuts = {k: float(v) for k, v in best_thresholds(scored, gold).items()}
    # over the bare numbers' score, which rounds to 6 digits, whatever the flagged ones score
    cuts[MISSING] = max(cuts[MISSING], round(rate, 6) + 1e-6)
    return Weights(coef, bias, cuts, fitted_on, rate, log1p)
