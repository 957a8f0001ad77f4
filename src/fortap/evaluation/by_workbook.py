"""Evaluation by workbook: per-workbook tallies and a workbook bootstrap of a metric's gap.

A dev split is a sample of workbooks, and the targets of one workbook are alike (its headers,
its formulas, its layout), so how precisely a dev metric is known depends on how many
workbooks carry it, not on how many targets. `evaluate_by_book` evaluates examples in batches
that never mix workbooks (`meta["book_key"]`) and keeps each workbook's logs beside the overall
means; `tallies` reads one accuracy out of them as hits and counts per workbook;
`bootstrap_gap` resamples workbooks with replacement (a cluster bootstrap) to put an interval
on the difference between two predictors' accuracies over the same targets; `effective_books`
says how many equally weighted workbooks the targets amount to.
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
    per_book = {}
    for book, group in books_of(examples).items():
        batches = [batch_of(group[i : i + size]) for i in range(0, len(group), size)]
        logs = evaluate(model, batches, autocast)
        per_book[book] = {key.removeprefix("eval/"): value for key, value in logs.items()}
    window: dict[str, list[float]] = {}
    for logs in per_book.values():
        for key, value in logs.items():
            window.setdefault(key, []).append(value)
    return {f"eval/{k}": v for k, v in mean_logs(window).items()}, per_book


def tallies(per_book: Mapping[str, Mapping[str, float]], name: str, metric: str = "acc"):
    """{workbook: Tally} of `metric/name` (weighted by its count, `n/name` for `acc`) from
    `evaluate_by_book`'s per-workbook logs; workbooks without such targets are left out."""
    out = {}
    for book, logs in per_book.items():
        n = logs.get(f"{COUNTS[metric]}/{name}", 0.0)
        if n > 0:
            out[book] = Tally(logs[f"{metric}/{name}"] * n, n)
    return out


def book_tallies(books: Sequence[str], hits: Sequence[float]) -> dict[str, Tally]:
    """{workbook: Tally} from aligned per-target workbook keys and hits (0/1 or expectations)."""
    out: dict[str, Tally] = {}
    for book, hit in zip(books, hits, strict=True):
        old = out.get(book, Tally(0.0, 0.0))
        out[book] = Tally(old.hits + float(hit), old.n + 1.0)
    return out


def per_book_mean(tallies: Mapping[str, Tally]) -> float:
    """Accuracy averaged over workbooks: each workbook's own accuracy, then their mean, so a
    workbook with many targets counts as much as one with few."""
    rates = [t.hits / t.n for t in tallies.values() if t.n > 0]
    return float(np.mean(rates)) if rates else 0.0


def bootstrap_gap(
    model: Mapping[str, Tally],
    baseline: Mapping[str, Tally],
    rounds: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, float]:
    """Gap = model accuracy - baseline accuracy over the workbooks both tally (same targets, so
    the same counts), with its `level` interval from `rounds` resamplings of workbooks with
    replacement: {"gap", "low", "high", "books"}."""
    books = sorted(set(model) & set(baseline))
    if not books:
        return {"gap": 0.0, "low": 0.0, "high": 0.0, "books": 0.0}
    for book in books:
        if abs(model[book].n - baseline[book].n) > 1e-6:
            raise ValueError(f"workbook {book!r}: model and baseline tally different targets")
    diff = np.array([model[b].hits - baseline[b].hits for b in books])  # (K,)
    n = np.array([model[b].n for b in books])  # (K,)
    draws = np.random.default_rng(seed).integers(0, len(books), (rounds, len(books)))  # (R, K)
    gaps = diff[draws].sum(1) / n[draws].sum(1)  # (R,)
    tail = 100 * (1 - level) / 2
    return {"gap": float(diff.sum() / n.sum()), "low": float(np.percentile(gaps, tail)),
            "high": float(np.percentile(gaps, 100 - tail)), "books": float(len(books))}  # fmt: skip


def effective_books(counts: Sequence[float]) -> float:
    """How many equally sized workbooks the targets amount to: (Σn)² / Σn² (the inverse
    Simpson index; 2 books of 50 targets -> 2.0, one of 98 and two of 1 -> 1.04)."""
    total, squares = sum(counts), sum(c * c for c in counts)
    return total * total / squares if squares else 0.0
