"""Whether a number is the sum of the numbers next to it: the cue of a *derived* cell.

`sum_cues(lines, order, values)` answers, for each number, whether it equals the sum of the
next `k` numbers of its line (a column read downwards, or a row read rightwards) for some
`k` in 2..`MAX_TERMS`, and whether it equals the sum of the previous `k`: a total above its
parts, or below them. Text and empty cells between numbers are skipped, so a block's parts
count though their labels interleave. Published tables round each figure, so "equal" allows
`TOLERANCE` of the total (a total of 1,234 over parts 617 and 618 still counts), and a zero is
nobody's sum.

Letters: M numbers, K terms.
"""

from __future__ import annotations

import numpy as np

MAX_TERMS = 40
TOLERANCE = 0.005  # of the total's magnitude


def sum_cues(
    lines: np.ndarray, order: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(after, before), each (M,) bool: `values[i]` equals the sum of the next (after) or the
    previous (before) k numbers of line `lines[i]`, the line read in increasing `order`."""
    m = len(values)
    after, before = np.zeros(m, bool), np.zeros(m, bool)
    if m < 3:
        return after, before
    sort = np.lexsort((order, lines))
    line, v = lines[sort], values[sort].astype(np.float64)  # (M,) in reading order
    running = np.concatenate([[0.0], np.cumsum(v)])  # running[i] = sum of v[:i]
    tol = TOLERANCE * np.abs(v)
    found_after, found_before = np.zeros(m, bool), np.zeros(m, bool)
    idx = np.arange(m)
    for k in range(2, min(MAX_TERMS, m - 1) + 1):
        nxt = idx + k  # the k numbers after i are v[i+1 .. i+k]
        ok = nxt < m
        same = np.zeros(m, bool)
        same[ok] = line[nxt[ok]] == line[ok]
        parts = running[np.minimum(nxt, m - 1) + 1] - running[idx + 1]
        found_after |= same & (np.abs(parts - v) <= tol)
        prev = idx - k  # the k numbers before i are v[i-k .. i-1]
        ok = prev >= 0
        same = np.zeros(m, bool)
        same[ok] = line[prev[ok]] == line[ok]
        parts = running[idx] - running[np.maximum(prev, 0)]
        found_before |= same & (np.abs(parts - v) <= tol)
    nonzero = v != 0
    after[sort], before[sort] = found_after & nonzero, found_before & nonzero
    return after, before
