"""Evaluation workbook by workbook: per-workbook logs, and the tallies read out of them.

A dev split is a sample of workbooks, so an interval on a dev metric resamples workbooks
(`fortap.metrics.bootstrap`), and that needs each workbook's own numbers. `evaluate_by_book`
evaluates examples in batches that never mix workbooks (`meta["book_key"]`) and keeps each
workbook's logs beside the overall means; `tallies` reads one accuracy out of them as hits and
counts per workbook (`Tally`), ready for `bootstrap_rate` and `bootstrap_gap`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from torch import nn

from fortap.encoding.example import Batch, Example
from fortap.metrics.bootstrap import Tally
from fortap.training.logs import COUNTS, evaluate, mean_logs

BOOK_KEY = "book_key"


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
