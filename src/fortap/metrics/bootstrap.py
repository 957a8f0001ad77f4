"""Cluster-bootstrap intervals: how precisely a metric is known when its targets come in groups.

A dev or test split is a sample of workbooks (or HiTab tables, or cell-type files), and the
targets of one group are alike (its headers, its formulas, its layout), so how precisely a
metric is known depends on how many groups carry it, not on how many targets. Every interval
of the package resamples groups with replacement (`draws`) and reads the percentile interval
of the statistic over the draws (`interval`):

- a rate from `Tally`s (hits and targets per group; `book_tallies` builds them from per-target
  hits): `bootstrap_rate`, pooled over targets or averaged over groups (`per_workbook_mean`,
  each group's own accuracy counted once), and `rate_summary` for both at once;
- the gap between two systems over the same targets: `bootstrap_gap` (paired: one draw of
  groups serves both);
- any other statistic (cell types' macro-F1 from summed confusion matrices): its own code over
  `draws`, then `interval`.

`effective_books` says how many equally weighted groups the targets amount to.
Letters: K groups, R resampling rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Tally:
    """Right answers and targets of one workbook (hits may be an expectation, e.g. a guess)."""

    hits: float
    n: float


def draws(rng: np.random.Generator, k: int, rounds: int) -> np.ndarray:
    """(R, K) indices: `rounds` resamplings of K groups with replacement."""
    return rng.integers(0, k, (rounds, k))


def interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """(low, high): the central `level` percentile interval of a statistic over its draws."""
    tail = 100 * (1 - level) / 2
    return float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))


def book_tallies(
    books: Sequence[str], hits: Sequence[float], counts: Sequence[float] | None = None
) -> dict[str, Tally]:
    """{workbook: Tally} from aligned per-target workbook keys and hits (0/1 or expectations).
    `counts` (default 1 each) weighs the targets: a conditional metric counts only the targets
    its condition holds for (count 0 leaves a target out); workbooks left with no count are
    left out."""
    out: dict[str, Tally] = {}
    weights = counts if counts is not None else [1.0] * len(hits)
    for book, hit, count in zip(books, hits, weights, strict=True):
        old = out.get(book, Tally(0.0, 0.0))
        out[book] = Tally(old.hits + float(hit), old.n + float(count))
    return {book: t for book, t in out.items() if t.n > 0}


def per_workbook_mean(tallies: Mapping[str, Tally]) -> float:
    """Accuracy averaged over workbooks: each workbook's own accuracy, then their mean, so a
    workbook with many targets counts as much as one with few."""
    rates = [t.hits / t.n for t in tallies.values() if t.n > 0]
    return float(np.mean(rates)) if rates else 0.0


def bootstrap_rate(
    tallies: Mapping[str, Tally],
    per_workbook: bool = False,
    rounds: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, float]:
    """An accuracy with its `level` interval from `rounds` resamplings of workbooks with
    replacement: pooled (hits / targets) or, with `per_workbook`, averaged over workbooks
    (`per_workbook_mean`): {"value", "low", "high", "books"}."""
    books = sorted(tallies)
    hits = np.array([tallies[b].hits for b in books])  # (K,)
    n = np.array([tallies[b].n for b in books])  # (K,)
    return _bootstrap(hits, n, per_workbook, rounds, seed, level, "value")


def rate_summary(tallies: Mapping[str, Tally], rounds: int = 2000, seed: int = 0) -> dict:
    """An accuracy pooled over targets and averaged over workbooks, each with its 95 %
    interval (`bootstrap_rate`): {"pooled", "pooled_low", "pooled_high", "per_workbook",
    "per_workbook_low", "per_workbook_high", "books"}."""
    pooled = bootstrap_rate(tallies, False, rounds, seed)
    mean = bootstrap_rate(tallies, True, rounds, seed)
    return {"pooled": pooled["value"], "pooled_low": pooled["low"], "pooled_high": pooled["high"],
            "per_workbook": mean["value"], "per_workbook_low": mean["low"],
            "per_workbook_high": mean["high"], "books": pooled["books"]}  # fmt: skip


def bootstrap_gap(
    model: Mapping[str, Tally],
    baseline: Mapping[str, Tally],
    rounds: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    per_workbook: bool = False,
) -> dict[str, float]:
    """Gap = model accuracy - baseline accuracy over the workbooks both tally (same targets, so
    the same counts), pooled or, with `per_workbook`, averaged over workbooks, with its `level`
    interval from `rounds` resamplings of workbooks with replacement:
    {"gap", "low", "high", "books"}."""
    books = sorted(set(model) & set(baseline))
    for book in books:
        if abs(model[book].n - baseline[book].n) > 1e-6:
            raise ValueError(f"workbook {book!r}: model and baseline tally different targets")
    diff = np.array([model[b].hits - baseline[b].hits for b in books])  # (K,)
    n = np.array([model[b].n for b in books])  # (K,)
    return _bootstrap(diff, n, per_workbook, rounds, seed, level, "gap")


def _bootstrap(hits, n, per_workbook: bool, rounds: int, seed: int, level: float, name: str):
    """Value of sum(hits) / sum(n) (or the mean of hits / n with `per_workbook`) over K
    workbooks, and its percentile interval over `rounds` draws of K workbooks with replacement."""
    k = len(n)
    if not k:
        return {name: 0.0, "low": 0.0, "high": 0.0, "books": 0.0}
    picks = draws(np.random.default_rng(seed), k, rounds)  # (R, K)
    if per_workbook:
        rates = hits / n  # (K,)
        value, values = rates.mean(), rates[picks].mean(1)  # (R,)
    else:
        value, values = hits.sum() / n.sum(), hits[picks].sum(1) / n[picks].sum(1)  # (R,)
    low, high = interval(values, level)
    return {name: float(value), "low": low, "high": high, "books": float(k)}


def effective_books(counts: Sequence[float]) -> float:
    """How many equally sized workbooks the targets amount to: (Σn)² / Σn² (the inverse
    Simpson index; 2 books of 50 targets -> 2.0, one of 98 and two of 1 -> 1.04)."""
    total, squares = sum(counts), sum(c * c for c in counts)
    return total * total / squares if squares else 0.0


def t_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): Student's t interval of the mean of `values` (one number per run,
    e.g. per pretraining seed); with one value the interval is unbounded."""
    from scipy.stats import t

    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, float("-inf"), float("inf")
    half = float(t.ppf(0.5 + level / 2, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return mean, mean - half, mean + half
