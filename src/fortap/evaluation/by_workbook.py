"""Evaluation by workbook: per-workbook tallies and a workbook bootstrap of a metric's gap.

A dev split is a sample of workbooks, and the targets of one workbook are alike (its headers,
its formulas, its layout), so how precisely a dev metric is known depends on how many
workbooks carry it, not on how many targets. `evaluate_by_book` evaluates examples in batches
that never mix workbooks (`meta["book_key"]`) and keeps each workbook's logs beside the overall
means; `tallies` reads one accuracy out of them as hits and counts per workbook;
`bootstrap_gap` resamples workbooks with replacement (a cluster bootstrap) to put an interval
on the difference between two predictors' accuracies over the same targets, and
`bootstrap_rate` on one accuracy, each pooled over targets or averaged over workbooks (each
workbook's own accuracy counted once); `rate_summary` reports an accuracy both ways, with
intervals; `effective_books` says how many equally weighted workbooks the targets amount to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from torch import nn

from fortap.encoding.example import Batch, Example
from fortap.training.logs import COUNTS, evaluate, mean_logs

BOOK_KEY = "book_key"


@dataclass(frozen=True)
class Tally:
    """Right answers and targets of one workbook (hits may be an expectation, e.g. a guess)."""

    hits: float
    n: float


def books_of(examples: Sequence[Example]) -> dict[str, list[Example]]:
    """Examples grouped by workbook, in order of first appearance."""
    books: dict[str, list[Example]] = {}
    for example in examples:
        books.setdefault(str(example.meta.get(BOOK_KEY, "")), []).append(example)
    return books


def evaluate_by_book(
    model: nn.Module,
    examples: Sequence[Example],
    batch_of: Callable[[list[Example]], Batch],
    size: int,
    autocast=None,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """(overall `eval/` means as `training.logs.evaluate` gives them, {workbook: its means}).
    Accuracies and counts of the overall means equal those of one evaluation over any batching
    of the same examples; losses are means over workbooks."""
    by_book = {}
    for book, group in books_of(examples).items():
        batches = [batch_of(group[i : i + size]) for i in range(0, len(group), size)]
        logs = evaluate(model, batches, autocast)
        by_book[book] = {key.removeprefix("eval/"): value for key, value in logs.items()}
    window: dict[str, list[float]] = {}
    for logs in by_book.values():
        for key, value in logs.items():
            window.setdefault(key, []).append(value)
    return {f"eval/{k}": v for k, v in mean_logs(window).items()}, by_book


def tallies(by_book: Mapping[str, Mapping[str, float]], name: str, metric: str = "acc"):
    """{workbook: Tally} of `metric/name` (weighted by its count, `n/name` for `acc`) from
    `evaluate_by_book`'s per-workbook logs; workbooks without such targets are left out."""
    out = {}
    for book, logs in by_book.items():
        n = logs.get(f"{COUNTS[metric]}/{name}", 0.0)
        if n > 0:
            out[book] = Tally(logs[f"{metric}/{name}"] * n, n)
    return out


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
    draws = np.random.default_rng(seed).integers(0, k, (rounds, k))  # (R, K)
    if per_workbook:
        rates = hits / n  # (K,)
        value, values = rates.mean(), rates[draws].mean(1)  # (R,)
    else:
        value, values = hits.sum() / n.sum(), hits[draws].sum(1) / n[draws].sum(1)  # (R,)
    tail = 100 * (1 - level) / 2
    return {name: float(value), "low": float(np.percentile(values, tail)),
            "high": float(np.percentile(values, 100 - tail)), "books": float(k)}  # fmt: skip


def effective_books(counts: Sequence[float]) -> float:
    """How many equally sized workbooks the targets amount to: (Σn)² / Σn² (the inverse
    Simpson index; 2 books of 50 targets -> 2.0, one of 98 and two of 1 -> 1.04)."""
    total, squares = sum(counts), sum(c * c for c in counts)
    return total * total / squares if squares else 0.0
