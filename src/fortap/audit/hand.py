"""The baseline of `bench/audit.py`'s scorings: the noisy-OR hand weights that the fitted
weights (`fortap finetune formula-audit`, `fortap.audit.refit`) replaced, set by reading the
findings of ten TASI books: score = 1 - prod(1 - HAND[fact] * fact), each fact clipped to [0, 1].
"""

from __future__ import annotations

import dataclasses
import math

from fortap.audit.evaluate import Scored

HAND = {
    "run_share": 0.6, "hole": 0.8, "fix_equal": 0.9, "top_equal": 0.75, "lower_equal": 0.4,
    "weak_equal": 0.15, "block_share": 0.85, "interior": 0.5, "fix_differs": 0.3,
    "stops_short": 0.7,
}  # fmt: skip


def hand_score(facts: dict[str, float]) -> float:
    miss = math.prod(1.0 - HAND[k] * min(max(v, 0.0), 1.0) for k, v in facts.items() if k in HAND)
    return round(1.0 - miss, 6)


def rescored(found: list[Scored], score_of) -> list[Scored]:
    """The same findings, each scored by `score_of(finding)`."""
    return [dataclasses.replace(s, score=score_of(s)) for s in found]
