"""A second pass along a line for cell types: does stacking a line's first-pass types help?

    .venv/bin/python bench/cell_types_line_pass.py [--json PATH] [--jobs 2]

A totals row is derived across its numbers, so a cell's type might be read better beside the
types of its line. On SAUS's five file-grouped folds (`saus_folds.json`), with one fixed LightGBM
setting (`SETTING`, `ROUNDS`, as `bench/cell_types_formulas.py`; the shipped features):

- `first`: the booster on the cell's features alone (the baseline, this run);
- `second`: a booster on those features plus, for the cell's row and for its column, the mean
  first-pass probability of each class over the line's other numbers, the largest derived
  probability among them, the share of them typed derived, and their count; and the
  first-pass probabilities of its row's first labelled cell (the row's label).

The training side's first-pass probabilities are out of fold (four groups of its files, each
typed by a booster fitted on the three others), so the second booster trains on what it will
read at test time. Prints macro and derived F1 [95 % file resampling] of both, and the paired
gap second - first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from fortap.tasks.cell_types.boosted import fit
from fortap.tasks.cell_types.feature_models import labelled_features
from fortap.tasks.cell_types.features import FEATURE_NAMES
from fortap.tasks.cell_types.labels import CLASS_INDEX, NO_LABEL
from fortap.tasks.cell_types.metrics import confusion, file_interval, paired_gap, scores
from fortap.tasks.cell_types.saus import read_saus
from fortap.tasks.cell_types.split import fold_sides, load_folds, make_folds

SAUS = Path(__file__).resolve().parents[1] / "../shared/data/saus_ctc"
SETTING = {"num_leaves": 15, "min_data_in_leaf": 100}
ROUNDS = 50
DERIVED, NUMBER = CLASS_INDEX["derived"], FEATURE_NAMES.index("cell_type=2")
K = len(CLASS_INDEX)


def line_features(rc: np.ndarray, numbers: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """(N, 2 * (K + 3) + K) from the first pass's (N, K) `probs` of a sheet's labelled cells at
    (N, 2) `rc`, `numbers` (N,) saying which hold a number (module doc)."""
    parts = []
    for axis in (0, 1):
        f = np.zeros((len(rc), K + 3), np.float32)
        for line in np.unique(rc[:, axis]):
            on = rc[:, axis] == line
            for i in np.flatnonzero(on):
                others = on & numbers
                others[i] = False
                if others.any():
                    f[i, :K] = probs[others].mean(0)
                    f[i, K] = probs[others, DERIVED].max()
                    f[i, K + 1] = (probs[others].argmax(1) == DERIVED).mean()
                f[i, K + 2] = others.sum()
        parts.append(f)
    label = np.zeros((len(rc), K), np.float32)
    for row in np.unique(rc[:, 0]):
        on = np.flatnonzero(rc[:, 0] == row)
        label[on] = probs[on[np.argmin(rc[on, 1])]]
    return np.hstack([*parts, label])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    sheets = read_saus(SAUS)
    data = {s.key: labelled_features(s) for s in sheets}
    rc = {s.key: np.asarray([(r, c) for r, row in enumerate(s.labels)
                             for c, lab in enumerate(row) if lab != NO_LABEL]) for s in sheets}  # fmt: skip

    def x_of(s, extra):
        return data[s.key][0] if extra is None else np.hstack([data[s.key][0], extra[s.key]])

    def probs(train, test, extra=None) -> dict[str, np.ndarray]:
        x = np.concatenate([x_of(s, extra) for s in train])
        y = np.concatenate([data[s.key][1] for s in train])
        booster = fit(x, y, SETTING, ROUNDS, 0, args.jobs, [f"f{i}" for i in range(x.shape[1])])
        return {s.key: booster.predict(x_of(s, extra)) for s in test}

    folds = load_folds()
    runs: dict[str, list[dict]] = {"first": [], "second": []}
    for k in range(len(folds)):
        train, test = fold_sides(sheets, folds, k)
        first = probs(train, test)
        oof: dict[str, np.ndarray] = {}
        for group in map(set, make_folds(train, 4)):
            oof |= probs([s for s in train if s.file not in group], [s for s in train if s.file in group])
        extra = {s.key: line_features(rc[s.key], data[s.key][0][:, NUMBER] > 0, p[s.key])
                 for side, p in ((train, oof), (test, first)) for s in side}  # fmt: skip
        second = probs(train, test, extra)
        for name, p in (("first", first), ("second", second)):
            files: dict[str, np.ndarray] = {}
            for s in test:
                files[s.file] = files.get(s.file, 0) + confusion(data[s.key][1], p[s.key].argmax(1))
            runs[name].append(files)
        print(f"fold {k}: derived F1 first {scores(sum(runs['first'][-1].values()))['derived_f1']:.3f}, "
              f"second {scores(sum(runs['second'][-1].values()))['derived_f1']:.3f}", flush=True)  # fmt: skip
    rows = []
    for name, by_fold in runs.items():
        per = [scores(sum(f.values())) for f in by_fold]
        iv = file_interval(by_fold, 1000)
        row = {"system": name, "macro_f1": float(np.mean([p["macro_f1"] for p in per])),
               "derived_f1": float(np.mean([p["derived_f1"] for p in per])), "interval": iv}  # fmt: skip
        rows.append(row)
        d = iv["derived_f1"]
        print(f"{name:8} macro-F1 {row['macro_f1']:.3f}  derived F1 {row['derived_f1']:.3f} "
              f"[{d[0]:.3f}, {d[1]:.3f}]")  # fmt: skip
    gap = paired_gap(runs["second"], runs["first"], 1000)
    g = gap["derived_f1"]
    print(f"second - first, derived F1 {g['gap']:+.3f} [{g['low']:+.3f}, {g['high']:+.3f}]; "
          f"ratio {rows[1]['derived_f1'] / max(rows[0]['derived_f1'], 1e-9):.2f}")  # fmt: skip
    rows.append({"gap": gap})
    targets = [{"name": "second pass derived F1 gap over the first (paired, > 0)",
                "value": g["gap"], "target": 0.0, "met": bool(g["low"] > 0)}]  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"results": rows, "targets": targets}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
