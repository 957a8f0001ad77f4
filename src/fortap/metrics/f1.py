"""The F1 score of counts: `f1(tp, fp, fn)`, and `f1_array` for many at once."""

from __future__ import annotations

import numpy as np


def f1(tp: float, fp: float, fn: float) -> float:
    """F1 of true positives, false positives and misses: 2tp / (2tp + fp + fn), 0 without a
    true positive. The one F1 of the package: objectives' metrics, the log means that
    recompute it from summed counts, cell types, the audit and the benches call this."""
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def f1_array(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """`f1` elementwise over arrays of counts of one shape (e.g. (R, K): per draw, per class)."""
    return np.where(tp > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0)
