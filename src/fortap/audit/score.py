"""A finding's score from its kind and measured facts: a logistic model read from weights.json.

score = sigmoid(bias[kind] + sum_i w[kind][i] * x_i), x_i a fact of the finding (log1p of it
for a count, `LOG1P`); a fact the model has no weight for counts for nothing. One model per
kind: a fact can mean another thing for the other kind (`run_cells`). A typed number with no
facts but the budget's (`BARE`: checked or not, at a run's end: no hole, no matching candidate)
scores `base_rate`, the share of key cells among such numbers where the weights were fitted: on
half of the TASI key a model fitted over them too (with those facts, or whether a formula reads
the number) flagged numbers of one book's derived columns in the other half's books, and fell
from 0.459 to 0.413-0.443 held out. The weights are fitted
(`fortap.audit.fit.fit_weights`) on every finding of the TASI key's 291 worksheets, label: the
cell is in the key; `thresholds` are one threshold per kind, chosen together for the best F1 on
the same findings, the defaults a report keeps findings at (`--min-score` sets one for both
kinds instead). The file says what it was fitted on; held-out
numbers come from fitting each half of the key and scoring the other (`bench/audit.py`).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

from fortap.audit.findings import KINDS, MISSING
from fortap.audit.measure import NOTHING
from fortap.errors import FortapError

WEIGHTS_FILE = Path(__file__).with_name("weights.json")
LOG1P = frozenset({"run_formulas", "run_cells", "odd", "left_out"})  # facts that are counts
BARE = frozenset({"checked", "run_end"})  # a typed number's facts when nothing points at it


def is_bare(kind: str, facts) -> bool:
    """A typed number no structure or candidate points at (its facts are `BARE`'s alone)."""
    return kind == MISSING and all(k in BARE for k in facts)


def feature(name: str, value: float) -> float:
    """A fact as the model reads it."""
    return math.log1p(max(value, 0.0)) if name in LOG1P else value


@dataclass(frozen=True)
class Weights:
    """A fitted logistic model per finding kind: its bias and a weight per fact name."""

    coef: dict[str, dict[str, float]]  # finding kind -> fact name -> weight
    bias: dict[str, float]  # finding kind -> intercept
    thresholds: dict[str, float]  # finding kind -> the threshold chosen with the fit
    fitted_on: str = ""  # what the weights were fitted on, in words
    base_rate: float = 0.0  # the score of a bare typed number (`is_bare`)

    def score(self, kind: str, facts: dict[str, float]) -> float:
        """The model's probability that the finding is an error, rounded to 6 digits."""
        if is_bare(kind, facts):
            return round(self.base_rate, 6)
        at = self.coef[kind]
        z = self.bias[kind] + sum(at[k] * feature(k, v) for k, v in facts.items() if k in at)
        return round(1.0 / (1.0 + math.exp(-min(max(z, -50.0), 50.0))), 6)

    def to_json(self) -> dict:
        return {"fitted_on": self.fitted_on, "thresholds": self.thresholds, "log1p": sorted(LOG1P),
                "base_rate": self.base_rate, "bias": self.bias, "weights": self.coef}  # fmt: skip

    @classmethod
    def from_json(cls, doc: dict, where: str = "weights") -> Weights:
        try:
            if sorted(doc["log1p"]) != sorted(LOG1P):
                raise ValueError(f"log1p facts {doc['log1p']} differ from score.LOG1P")
            coef = {str(k): {str(n): float(v) for n, v in w.items()}
                    for k, w in doc["weights"].items()}  # fmt: skip
            bias = {str(k): float(v) for k, v in doc["bias"].items()}
            if set(bias) != set(KINDS) or set(coef) != set(KINDS):
                raise ValueError(f"weights for {sorted(coef)}, not the kinds {sorted(KINDS)}")
            cuts = {str(k): float(v) for k, v in doc["thresholds"].items()}
            if set(cuts) != set(KINDS) or not all(0.0 <= v <= NOTHING for v in cuts.values()):
                raise ValueError(f"thresholds {cuts} are not one in [0, 1] (or {NOTHING}: none "
                                 f"flagged) per kind {sorted(KINDS)}")  # fmt: skip
            rate = float(doc.get("base_rate", 0.0))  # none in a file fitted before it
            if not 0.0 <= round(rate, 6) < cuts[MISSING]:
                raise ValueError(f"base_rate {rate} is not in [0, the {MISSING} threshold)")
            return cls(coef, bias, cuts, str(doc.get("fitted_on", "")), rate)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise FortapError(f"{where}: not audit weights ({err})") from err


@functools.cache
def load_weights(path: Path = WEIGHTS_FILE) -> Weights:
    """The weights in `path` (JSON; default: the shipped ones), read once."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise FortapError(f"{path}: cannot read audit weights ({err})") from err
    return Weights.from_json(doc, str(path))


def combine(kind: str, facts: dict[str, float]) -> float:
    """The shipped model's score of a finding of `kind` with `facts`."""
    return load_weights().score(kind, facts)


def default_thresholds() -> dict[str, float]:
    """The per-kind thresholds fitted with the shipped weights (a report's default)."""
    return dict(load_weights().thresholds)
