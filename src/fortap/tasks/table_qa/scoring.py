"""Execution accuracy of a system's answers, broken down, with intervals from resampling tables.

`score(rows)` takes one `Scored` row per question (its gold operation, answer and whether the
answer was right) and gives the accuracy with a 95 % interval from resampling tables with
replacement (`fortap.metrics.bootstrap.bootstrap_rate`, a table standing for a workbook: the
questions of one table are alike), the accuracy per gold operation and per answer type
(number, text, list), and the share of questions whose gold cells survived the input's cut
(the ceiling) where that is known.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from fortap.metrics.bootstrap import Tally, bootstrap_rate
from fortap.tasks.table_qa.matching import to_value


@dataclass(frozen=True)
class Scored:
    id: str
    table_id: str
    question: str
    gold_op: str  # "other" outside the operation set
    gold: tuple
    predicted: tuple  # () when nothing was answered
    right: bool
    shown: bool | None = None  # gold cells survived the cut (None: unknown)
    how: str = ""  # the system's formula, for the error samples


def answer_type(gold: Sequence) -> str:
    if len(gold) > 1:
        return "list"
    return "number" if isinstance(to_value(gold[0]), float) else "text"


def score(rows: Sequence[Scored], errors: int = 8, seed: int = 0) -> dict:
    """Accuracy (with its interval), per gold operation, per answer type, the ceiling share and
    `errors` wrong answers drawn with `seed`."""
    per_table: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_op: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        for tally in (per_table[row.table_id], by_op[row.gold_op], by_type[answer_type(row.gold)]):
            tally[0] += row.right
            tally[1] += 1
    interval = bootstrap_rate({t: Tally(h, n) for t, (h, n) in per_table.items()})
    known = [row.shown for row in rows if row.shown is not None]
    wrong = [row for row in rows if not row.right]
    sample = random.Random(seed).sample(wrong, min(errors, len(wrong)))
    return {
        "accuracy": interval["value"], "low": interval["low"], "high": interval["high"],
        "n": len(rows), "tables": int(interval["books"]),
        "by_op": {k: {"accuracy": h / n, "n": n} for k, (h, n) in sorted(by_op.items())},
        "by_type": {k: {"accuracy": h / n, "n": n} for k, (h, n) in sorted(by_type.items())},
        "gold_shown": sum(known) / len(known) if known else None,
        "errors": [{"question": r.question, "gold": list(r.gold), "predicted": list(r.predicted),
                    "how": r.how, "gold_op": r.gold_op} for r in sample],
    }  # fmt: skip
