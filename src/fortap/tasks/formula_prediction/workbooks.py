"""Formula-prediction metrics by workbook: each top-k metric pooled and averaged per workbook,
with 95 % workbook-bootstrap intervals, and the gap between two systems on the same targets.

A test split is a sample of workbooks, and two workbooks may hold a third of its targets, so
every metric is reported twice: pooled over targets, and as the mean of each workbook's own
value (a workbook counted once, whatever its size). The interval of each comes from
resampling workbooks (`fortap.metrics.bootstrap`).

Metrics (`metric_names(k)`, k the decoding's `top_k`):
- formula top-1 / top-k and sketch top-1 / top-k: one hit per target
  (`metrics.example_hits`);
- range top-1 / top-k: of the targets whose gold sketch is first / among the first k, the share
  whose gold formula is too. Pooled, range top-1 is the reference's range accuracy
  (`range_acc`); a workbook where no sketch is right has no range value.
"""

from __future__ import annotations

from collections.abc import Sequence

from fortap.corpus.split import book_key
from fortap.encoding.example import Example
from fortap.metrics.bootstrap import Tally, book_tallies, bootstrap_gap, bootstrap_rate
from fortap.tasks.formula_prediction.metrics import Gold, Guess, example_hits

Tallies = dict[str, dict[str, Tally]]  # metric -> workbook key -> tally


def metric_names(k: int = 5) -> tuple[str, ...]:
    """The metrics reported by workbook, top-1 then top-k of formula, sketch and range."""
    kinds = ("formula", "sketch", "range")
    return tuple(dict.fromkeys(f"{kind}_top{n}" for kind in kinds for n in (1, k)))


def books_of(examples: Sequence[Example]) -> list[str]:
    """The workbook key of every example (copies of one workbook share it)."""
    return [book_key(ex.meta["book"]) for ex in examples]


def hit_tallies(
    books: Sequence[str], golds: Sequence[Gold], guesses: Sequence[Sequence[Guess]], k: int = 5
) -> Tallies:
    """{metric: {workbook: Tally}} of aligned targets, for every metric of `metric_names(k)`."""
    hits = [example_hits(g, ranked, k) for g, ranked in zip(golds, guesses, strict=True)]
    out = {}
    for n in dict.fromkeys((1, k)):
        formula = [h[f"formula_top{n}"] for h in hits]
        sketch = [h[f"sketch_top{n}"] for h in hits]
        out[f"formula_top{n}"] = book_tallies(books, formula)
        out[f"sketch_top{n}"] = book_tallies(books, sketch)
        out[f"range_top{n}"] = book_tallies(books, formula, counts=sketch)  # formula => sketch
    return {name: out[name] for name in metric_names(k)}


def workbook_metrics(tallies: Tallies) -> dict[str, dict[str, float]]:
    """Per metric: the pooled value and the per-workbook mean, each with its 95 % interval
    (`pooled`, `pooled_low`, `pooled_high`, `per_workbook`, `per_workbook_low`, `per_workbook_high`) and
    the number of workbooks that carry it (`books`)."""
    out = {}
    for metric, by_book in tallies.items():
        pooled, mean = (bootstrap_rate(by_book, per_workbook=p) for p in (False, True))
        out[metric] = {
            "pooled": pooled["value"], "pooled_low": pooled["low"],
            "pooled_high": pooled["high"], "per_workbook": mean["value"],
            "per_workbook_low": mean["low"], "per_workbook_high": mean["high"], "books": pooled["books"],
        }  # fmt: skip
    return out


def metric_gap(a: Tallies, b: Tallies, metric: str) -> dict[str, dict[str, float]]:
    """System a minus system b on `metric` over the same targets, pooled and averaged per
    workbook, each {"gap", "low", "high", "books"} with its 95 % workbook-bootstrap interval."""
    return {
        "pooled": bootstrap_gap(a[metric], b[metric]),
        "per_workbook": bootstrap_gap(a[metric], b[metric], per_workbook=True),
    }
