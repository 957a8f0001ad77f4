"""A finding's score from its kind and measured facts: a logistic model read from weights.json.

score = sigmoid(bias[kind] + sum_i w[kind][i] * x_i), x_i a fact of the finding as its check
declares it read (log1p of it for a count, `Weights.log1p`). One model per kind: a fact can
mean another thing for the other kind (`run_cells`). A weights file has a weight for every fact
its kind's checks declare (`checks.declared`) and for no other: `load_weights` refuses one whose
facts differ, naming them, as a ranker refuses features no source declares. A typed number with
no facts but the budget's (`typed_numbers.BARE`: checked or not, at a run's end: no hole, no
matching candidate) scores `base_rate`, the share of key cells among such numbers where the
weights were fitted: on half of the TASI key a model fitted over them too (with those facts, or
whether a formula reads the number) flagged numbers of one book's derived columns in the other
half's books, and fell from 0.459 to 0.413-0.443 held out. The weights are fitted
(`fortap.audit.fit.fit_weights`) on every finding of the TASI key's 291 worksheets, label: the
cell is in the key; `thresholds` are one threshold per kind, chosen together for the best F1 on
the same findings, the defaults a report keeps findings at (`--min-score` sets one for both
kinds instead). The file says what it was fitted on; held-out numbers come from fitting each
half of the key and scoring the other (`bench/audit.py`).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from fortap.audit import checks
from fortap.audit.checks.typed_numbers import BARE
from fortap.audit.findings import KINDS, MISSING
from fortap.audit.measure import NOTHING
from fortap.errors import FortapError

WEIGHTS_FILE = Path(__file__).with_name("weights.json")


def is_bare(kind: str, facts) -> bool:
    """A typed number no structure or candidate points at (its facts are `BARE`'s alone)."""
    return kind == MISSING and all(k in BARE for k in facts)


def feature(name: str, value: float, log1p: Collection[str]) -> float:
    """A fact as the model reads it: log(1 + x) for a count in `log1p` (under 0 as 0)."""
    return math.log1p(max(value, 0.0)) if name in log1p else value


@dataclass(frozen=True)
class Weights:
    """A fitted logistic model per finding kind: its bias and a weight per fact name."""

    coef: dict[str, dict[str, float]]  # finding kind -> fact name -> weight
    bias: dict[str, float]  # finding kind -> intercept
    thresholds: dict[str, float]  # finding kind -> the threshold chosen with the fit
    fitted_on: str = ""  # what the weights were fitted on, in words
    base_rate: float = 0.0  # the score of a bare typed number (`is_bare`)
    # the facts read as log(1 + x): those the checks declare as counts
    log1p: frozenset[str] = field(default_factory=checks.counts)

    def score(self, kind: str, facts: dict[str, float]) -> float:
        """The model's probability that the finding is an error, rounded to 6 digits; a fact
        it has no weight for counts for nothing."""
        if is_bare(kind, facts):
            return round(self.base_rate, 6)
        at, log1p = self.coef[kind], self.log1p
        z = self.bias[kind] + sum(at[k] * feature(k, v, log1p) for k, v in facts.items() if k in at)
        return round(1.0 / (1.0 + math.exp(-min(max(z, -50.0), 50.0))), 6)

    def to_json(self) -> dict:
        return {"fitted_on": self.fitted_on, "thresholds": self.thresholds,
                "log1p": sorted(self.log1p), "base_rate": self.base_rate, "bias": self.bias,
                "weights": self.coef}  # fmt: skip

    @classmethod
    def from_json(cls, doc: dict, where: str = "weights", strict: bool = True) -> Weights:
        """The weights in `doc` (read from `where`), refused with a `FortapError` unless they
        are one model per kind over the facts the checks declare (`check_facts`); not `strict`,
        over the facts they have (a fact without a weight counts for nothing)."""
        try:
            log1p = frozenset(str(n) for n in doc["log1p"])
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
            weights = cls(coef, bias, cuts, str(doc.get("fitted_on", "")), rate, log1p)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise FortapError(f"{where}: not audit weights ({err})") from err
        if strict:
            check_facts(weights, where)
        return weights


def check_facts(weights: Weights, where: object) -> None:
    """A `FortapError` naming the difference when the facts `weights` weigh per kind, or those
    it reads as counts, are not those the checks declare (`checks.declared`)."""
    parts = []
    for kind, facts in checks.declared().items():
        missing = sorted(set(facts) - set(weights.coef[kind]))
        extra = sorted(set(weights.coef[kind]) - set(facts))
        parts += [f"{kind}: missing {', '.join(missing)}"] if missing else []
        parts += [f"{kind}: not declared by any check: {', '.join(extra)}"] if extra else []
    if weights.log1p != (counted := checks.counts()):
        parts.append(f"counts {', '.join(sorted(weights.log1p))}, declared as counts "
                     f"{', '.join(sorted(counted))}")  # fmt: skip
    if parts:
        raise FortapError(f"{where}: its facts are not those the audit's checks declare "
                          f"({'; '.join(parts)}); fit the weights again with "
                          "`fortap finetune formula-audit`")  # fmt: skip


def load_weights(path: Path = WEIGHTS_FILE, strict: bool = True) -> Weights:
    """The weights in `path` (JSON; default: the shipped ones), checked against the facts the
    checks declare now unless not `strict` (the file is read once)."""
    return Weights.from_json(_read(Path(path)), str(path), strict)


@functools.cache
def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise FortapError(f"{path}: cannot read audit weights ({err})") from err


def default_thresholds() -> dict[str, float]:
    """The per-kind thresholds fitted with the shipped weights (a report's default), read
    whatever facts they weigh: the fit's run config takes its defaults from here, and it must
    load when a new check has left the shipped weights behind."""
    return dict(load_weights(strict=False).thresholds)
