"""The audit's scores for `bench/audit.py`: the hand weights the fit replaced (the baseline),
cross-fitted weights (the held-out number), and the fit of the shipped `weights.json`.

Cross-fitting: weights and threshold fitted on one half's findings (`fit.fit_weights`, label:
the cell is in the key) score the other half, and back; the halves are those of the
thresholds (`measure.half_of`). The shipped weights are fitted on both halves:

    python -m bench.helpers.audit_fit FOUND.jsonl src/fortap/audit/weights.json

FOUND.jsonl: every finding of a TASI run (`bench/audit.py --json J` writes J.found.jsonl).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from pathlib import Path

from fortap.audit.evaluate import Scored, gold_of
from fortap.audit.findings import KINDS
from fortap.audit.fit import fit_weights
from fortap.audit.keys import KeySheet, tasi_key
from fortap.audit.measure import HALVES, above, half_of, scores
from fortap.audit.score import Weights

# the noisy-OR weights `fortap audit` scored with before the fit, set by reading the findings
# of ten TASI books: score = 1 - prod(1 - HAND[name] * fact)
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


def fit_on(found: list[Scored], gold: set, fitted_on: str) -> Weights:
    rows = [(s.kind, dict(s.facts)) for s in found]
    return fit_weights(rows, [s.place in gold for s in found], fitted_on)


def cross_fit(found: list[Scored], gold: set) -> dict[str, Weights]:
    """Half -> the weights (and threshold) fitted on that half's findings alone."""
    return {h: fit_on([s for s in found if half_of(s.place[0]) == h],
                      {g for g in gold if half_of(g[0]) == h}, f"TASI half {h}")
            for h in HALVES}  # fmt: skip


def other(h: str) -> str:
    return HALVES[1 - HALVES.index(h)]


def fitted_metrics(key: list[KeySheet], found: list[Scored], models: dict[str, Weights]) -> dict:
    """Each half scored by the other half's weights at its threshold, overall and per kind."""
    flagged, by_kind, out = set(), {k: set() for k in KINDS}, {}
    for h in HALVES:
        m = models[other(h)]
        mine = [s for s in found if half_of(s.place[0]) == h]
        part = [ks for ks in key if half_of(str(ks.book)) == h]
        kinds = {k: above({s.place: m.score(s.kind, dict(s.facts)) for s in mine if s.kind == k},
                          m.min_score) for k in KINDS}  # fmt: skip
        got = set().union(*kinds.values())
        flagged |= got
        for k in KINDS:
            by_kind[k] |= kinds[k]
        out[h] = {"threshold": round(m.min_score, 6), "audit": scores(got, gold_of(part)).to_json(),
                  "audit_by_kind": {k: scores(kinds[k], gold_of(part, k)).to_json()
                                    for k in KINDS}}  # fmt: skip
    out["held-out"] = {"audit": scores(flagged, gold_of(key)).to_json(),
                       "audit_by_kind": {k: scores(by_kind[k], gold_of(key, k)).to_json()
                                         for k in KINDS}}  # fmt: skip
    return out


def read_found(path: Path) -> list[Scored]:
    out = []
    for line in path.read_text().splitlines():
        book, sheet, r, c, kind, score, facts = json.loads(line)
        out.append(Scored((book, sheet, r, c), kind, score, tuple(facts.items())))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="Fit the shipped audit weights on all of TASI.")
    ap.add_argument("found", type=Path, help="J.found.jsonl of a bench/audit.py run")
    ap.add_argument("out", type=Path, help="weights.json to write")
    ap.add_argument("--tasi", type=Path, default=Path("/work/shared/data/tasi"))
    args = ap.parse_args()
    found = read_found(args.found)
    run = args.found.with_suffix("").with_suffix(".json")  # J.json beside J.found.jsonl
    checks = json.loads(run.read_text())["config"]["max_checks"] if run.exists() else "?"
    what = (f"every finding of the TASI key's 291 worksheets, both halves ({len(found)} "
            f"findings, {checks} checks a book, bench/audit.py)")  # fmt: skip
    model = fit_on(found, gold_of(tasi_key(args.tasi)), what)
    args.out.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    print(f"{args.out}: {what}; min_score {model.min_score}")


if __name__ == "__main__":
    main()
