"""A finding's score from its measured facts: a noisy-OR of weighted pieces of evidence.

Each fact is a number in [0, 1] (a share, or 1.0 for a check that held); `WEIGHTS` says how
far one alone is trusted, and independent pieces combine as 1 - prod(1 - weight * fact). The
weights are not fitted: they were set by reading the findings on ten books of the TASI key
(every seventh, both halves), so the key's halves are not blind to them; the threshold a report
uses is chosen on one half of the key and reported on the other (`bench/audit.py`), and the
bench adds weights fitted on the other half alone as a clean reference.
"""

from __future__ import annotations

import math

WEIGHTS = {
    # missing-formula
    "run_share": 0.6,  # formulas among the other cells of the typed number's run
    "hole": 0.8,  # its two neighbours along the run hold the same formula
    "fix_equal": 0.9,  # the run's formula, re-anchored to it, gives the typed value
    "top_equal": 0.75,  # the engine's top suggestion gives the typed value
    "lower_equal": 0.4,  # a lower suggestion among the previewed ones gives it
    "weak_equal": 0.15,  # a suggestion from a source that matches by chance gives it
    # inconsistent-formula
    "block_share": 0.85,  # the block's cells / the run's cells
    "interior": 0.5,  # both neighbours along the run hold the block's formula
    "fix_differs": 0.3,  # the fix gives another value than the cell shows
    "stops_short": 0.7,  # a column total whose range stops short of the numbers above
}


def combine(facts: dict[str, float]) -> float:
    """1 - prod(1 - WEIGHTS[name] * value), over the facts that have a weight."""
    miss = math.prod(1.0 - WEIGHTS[k] * min(max(v, 0.0), 1.0) for k, v in facts.items()
                     if k in WEIGHTS)  # fmt: skip
    return round(1.0 - miss, 6)
