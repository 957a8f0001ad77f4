"""Cell-type scores: confusion matrices per file, per-class and macro F1, and file resampling.

A fold's score pools its cells: the confusion matrices of its files are summed, then F1 per
class (`fortap.metrics.f1`) and their mean over the six classes (macro-F1). A run over five
folds reports the mean over the folds. Intervals resample the fold's files with replacement
(the cluster bootstrap of `fortap.metrics.bootstrap`, a file standing for a workbook; macro-F1
is not a rate, so each draw sums the drawn files' whole confusion matrices):
`file_interval` for one system, `paired_gap` for the difference of two systems over the same
files and cells.

Letters: F files, K classes, R resampling rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from fortap.metrics.bootstrap import draws, interval
from fortap.metrics.f1 import f1, f1_array
from fortap.tasks.cell_types.labels import CELL_TYPES

K = len(CELL_TYPES)
DERIVED = CELL_TYPES.index("derived")


def confusion(gold: Sequence[int], predicted: Sequence[int]) -> np.ndarray:
    """(K, K) counts, rows gold, columns predicted."""
    out = np.zeros((K, K), dtype=np.int64)
    np.add.at(out, (np.asarray(gold, dtype=np.int64), np.asarray(predicted, dtype=np.int64)), 1)
    return out


def class_f1(conf: np.ndarray) -> list[float]:
    """F1 of each class from one (K, K) confusion matrix."""
    tp = np.diag(conf)
    fp, fn = conf.sum(0) - tp, conf.sum(1) - tp
    return [f1(float(t), float(p), float(n)) for t, p, n in zip(tp, fp, fn, strict=True)]


def scores(conf: np.ndarray) -> dict:
    """Macro-F1, derived F1, per-class F1, accuracy, cells and the matrix of pooled `conf`."""
    per = class_f1(conf)
    return {"macro_f1": float(np.mean(per)), "derived_f1": per[DERIVED],
            "per_class": dict(zip(CELL_TYPES, per, strict=True)),
            "accuracy": float(np.trace(conf) / max(conf.sum(), 1)), "cells": int(conf.sum()),
            "confusion": conf.tolist()}  # fmt: skip


def _f1_draws(confs: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """(R, K) per-class F1 of each draw of files (`picks` (R, F) file indices)."""
    pooled = confs[picks].sum(1).astype(np.float64)  # (R, K, K)
    tp = np.diagonal(pooled, axis1=1, axis2=2)  # (R, K)
    fp, fn = pooled.sum(1) - tp, pooled.sum(2) - tp  # (R, K)
    return f1_array(tp, fp, fn)  # (R, K)


def _stack(files: Mapping[str, np.ndarray], names: Sequence[str]) -> np.ndarray:
    return (
        np.stack([np.asarray(files[n]) for n in names]) if names else np.zeros((0, K, K))
    )  # (F, K, K)


Folds = Sequence[Mapping[str, np.ndarray]]  # per fold: {file: (K, K) confusion}
PICKS = {"macro_f1": lambda x: x.mean(-1), "derived_f1": lambda x: x[..., DERIVED]}


def _fold_draws(folds: Folds, rounds: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(R, K) and (K,): per-class F1 averaged over the folds, under `rounds` resamplings of each
    fold's files (each fold resampled within itself), and on the files as they are."""
    rng = np.random.default_rng(seed)
    drawn, whole = [], []
    for files in folds:
        names = sorted(files)
        confs = _stack(files, names)
        drawn.append(_f1_draws(confs, draws(rng, len(names), rounds)))  # (R, K)
        whole.append(_f1_draws(confs, np.arange(len(names))[None])[0])  # (K,)
    return np.mean(drawn, axis=0), np.mean(whole, axis=0)


def file_interval(folds: Folds, rounds: int = 2000, seed: int = 0,
                  level: float = 0.95) -> dict[str, list[float]]:  # fmt: skip
    """[low, high] of macro-F1 and derived F1 (pooled per fold, averaged over the folds) over
    `rounds` resamplings of each fold's files."""
    drawn, _ = _fold_draws(folds, rounds, seed)
    return {key: list(interval(pick(drawn), level)) for key, pick in PICKS.items()}


def paired_gap(a: Folds, b: Folds, rounds: int = 2000, seed: int = 0,
               level: float = 0.95) -> dict[str, dict[str, float]]:  # fmt: skip
    """a - b in macro-F1 and derived F1 (each pooled per fold, averaged over the folds), over
    the files both scored, with the interval of the same draws of files applied to both:
    {"macro_f1": {"gap", "low", "high"}, "derived_f1": {...}}."""
    shared_a, shared_b = [], []
    for fa, fb in zip(a, b, strict=True):
        names = sorted(set(fa) & set(fb))
        for n in names:
            if np.asarray(fa[n]).sum(1).tolist() != np.asarray(fb[n]).sum(1).tolist():
                raise ValueError(f"file {n!r}: the two systems scored different cells")
        shared_a.append({n: fa[n] for n in names})
        shared_b.append({n: fb[n] for n in names})
    da, ga = _fold_draws(shared_a, rounds, seed)  # the same seed: the same draws of files
    db, gb = _fold_draws(shared_b, rounds, seed)
    out = {}
    for key, pick in PICKS.items():
        low, high = interval(pick(da) - pick(db), level)  # over (R,) paired differences
        out[key] = {"gap": float(pick(ga) - pick(gb)), "low": low, "high": high}
    return out
