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


AGGREGATE_NAMES = ("sum_run", "average_run", "difference_of_two", "share_of_two",
                   "line_reproduced")  # fmt: skip


def aggregate_cues(lines: np.ndarray, order: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(M, 5) float64 of each number along its line (read in increasing `order`):

    - `sum_run`: the run whose sum it is, as its length k in 2..`MAX_TERMS` (the shortest
      found), positive for the k numbers after it, negative for the k before; 0 for none;
    - `average_run`: the same for the average of the k numbers after or before it;
    - `difference_of_two`: it equals the difference of the two numbers before it (either way);
    - `share_of_two`: it equals the ratio of the two numbers before it, or that ratio x 100;
    - `line_reproduced`: the share of its line's numbers that one of the four reproduces.

    Equality allows `TOLERANCE` of the number's magnitude; a zero reproduces nothing."""
    m = len(values)
    out = np.zeros((m, len(AGGREGATE_NAMES)))
    if m < 3:
        return out
    sort = np.lexsort((order, lines))
    line, v = lines[sort], values[sort].astype(np.float64)  # (M,) in reading order
    running = np.concatenate([[0.0], np.cumsum(v)])
    tol = TOLERANCE * np.abs(v)
    idx = np.arange(m)
    found = np.zeros((m, 4))
    for k in range(min(MAX_TERMS, m - 1), 1, -1):  # longest first, so the shortest stays
        for sign, ends in ((1, idx + k), (-1, idx - k)):
            ok = (ends < m) & (ends >= 0)
            same = np.zeros(m, bool)
            same[ok] = line[ends[ok]] == line[ok]
            if sign > 0:
                parts = running[np.minimum(ends, m - 1) + 1] - running[idx + 1]
            else:
                parts = running[idx] - running[np.maximum(ends, 0)]
            found[same & (np.abs(parts - v) <= tol), 0] = sign * k
            found[same & (np.abs(parts / k - v) <= tol), 1] = sign * k
    a, b = np.roll(v, 2), np.roll(v, 1)  # the two numbers before each
    two = (idx >= 2) & (np.roll(line, 2) == line) & (np.roll(line, 1) == line)
    found[:, 2] = two & ((np.abs(a - b - v) <= tol) | (np.abs(b - a - v) <= tol))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(b != 0, a / b, np.nan)
    share = (np.abs(ratio - v) <= tol) | (np.abs(100 * ratio - v) <= tol)
    found[:, 3] = two & share & (b != 0)
    found[v == 0] = 0
    hit = (found != 0).any(1).astype(np.float64)
    starts = np.flatnonzero(np.r_[True, line[1:] != line[:-1]])
    per_line = np.add.reduceat(hit, starts) / np.diff(np.r_[starts, m])
    out[sort, :4] = found
    out[sort, 4] = np.repeat(per_line, np.diff(np.r_[starts, m]))
    return out
