"""The one F1 of the package, on counts and on arrays of counts."""

from __future__ import annotations

import numpy as np
import pytest

from fortap.metrics.f1 import f1, f1_array


def test_f1_of_counts():
    assert f1(3, 1, 2) == pytest.approx(6 / 9)
    assert f1(0, 4, 5) == 0.0  # no true positive
    assert f1(0, 0, 0) == 0.0


def test_f1_array_is_f1_elementwise():
    tp = np.array([[3.0, 0.0], [5.0, 1.0]])
    fp = np.array([[1.0, 4.0], [0.0, 0.0]])
    fn = np.array([[2.0, 0.0], [5.0, 0.0]])
    expected = [
        [f1(*c) for c in zip(t, p, n, strict=True)] for t, p, n in zip(tp, fp, fn, strict=True)
    ]
    assert f1_array(tp, fp, fn).tolist() == expected
