"""Cell types with the formula-labelled set: three trainings under the shipped recipe.

    .venv/bin/python bench/cell_types_formulas.py --set RUNS/set [--cap 15000] [--json PATH]
        [--cache RUNS/bench]

The set is `fortap build-cell-types` (`tasks.cell_types.formula_set`). Every training is
LightGBM on the extracted features (`boosted.fit`, class weights as shipped) with one fixed
setting and number of rounds (`SETTING`, `ROUNDS`: one of the pairs the shipped recipe's inner
split picks), so that the 13 fits of a comparison run in minutes on two shared cores; the
shipped recipe's own choice per fold is not rerun here. `--features base` reads the shipped
features, `--features aggregates` adds which run a number aggregates (`sums.aggregate_cues`).
The trainings:

- `saus`: SAUS alone (today's recipe);
- `saus+formulas`: SAUS plus the set's train split;
- `formulas`: the set's train split alone.

Each is scored on SAUS's five file-grouped folds (`saus_folds.json`; a SAUS fold is never in
its training side) and on the set's test workbooks, values only: derived and macro F1, with
intervals from resampling files, and paired gaps over `saus` (the same files drawn for both).
The set's train split is sampled to at most `--cap` labelled cells per source (whole tables,
seed 0) to keep each fit within minutes on two shared cores. Each fit's per-file confusion
matrices are cached under --cache, so a rerun resumes. Targets: SAUS derived F1 >= 0.70 with
macro-F1 >= 0.89, and the set's test derived F1 >= 0.85, for the best training.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from fortap.tasks.cell_types.boosted import fit
from fortap.tasks.cell_types.feature_models import labelled_features, stack
from fortap.tasks.cell_types.features import FEATURE_NAMES
from fortap.tasks.cell_types.formula_set import capped
from fortap.tasks.cell_types.metrics import file_interval, paired_gap, scores
from fortap.tasks.cell_types.saus import read_saus
from fortap.tasks.cell_types.split import fold_sides, load_folds
from fortap.tasks.cell_types.sums import AGGREGATE_NAMES

SAUS = Path(__file__).resolve().parents[1] / "../shared/data/saus_ctc"
TRAININGS = ("saus", "saus+formulas", "formulas")
SETTING = {"num_leaves": 15, "min_data_in_leaf": 100}  # one of the shipped recipe's choices
ROUNDS = 50
NEW = {f"{axis}_{n}" for axis in ("col", "row") for n in AGGREGATE_NAMES}
FEATURES = {"base": [n for n in FEATURE_NAMES if n not in NEW], "aggregates": list(FEATURE_NAMES)}
TARGETS = {"saus_derived_f1": 0.70, "saus_macro_f1": 0.89, "formulas_test_derived_f1": 0.85}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", type=Path, required=True)
    ap.add_argument("--cap", type=int, default=15000)
    ap.add_argument("--cache", type=Path, default=Path("runs/cell_types_formulas"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--features", choices=sorted(FEATURES), default="base")
    ap.add_argument("--score-only", action="store_true",
                    help="read nothing and fit nothing: score the fits cached under --cache")
    ap.add_argument("--prefit-reverse", action="store_true",
                    help="only fill the cache, last fit first (a second process beside a run)")
    ap.add_argument("--trainings", default=",".join(TRAININGS),
                    help="which of them to fit (saus is always fitted: the gaps are over it)")
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    saus, train_f, test_f, data, names = [], [], [], {}, FEATURES[args.features]
    if not args.score_only:
        t0 = time.time()
        saus = read_saus(SAUS)
        train_f = read_saus(args.set / "train")
        test_f = read_saus(args.set / "test")
        names = FEATURES[args.features]
        cols = [FEATURE_NAMES.index(n) for n in names]
        data = {}
        for s in (*saus, *train_f, *test_f):
            x, y = labelled_features(s)
            data[s.key] = (x[:, cols], y)
        train_f = capped(train_f, args.cap)
        print(f"read in {time.time() - t0:.0f}s: SAUS {len(saus)} sheets; set train {len(train_f)} "
              f"tables ({sum(len(data[s.key][1]) for s in train_f)} cells, capped), test "
              f"{len(test_f)} ({sum(len(data[s.key][1]) for s in test_f)} cells)", flush=True)  # fmt: skip
    folds = load_folds()
    chosen = [t for t in TRAININGS if t == "saus" or t in args.trainings.split(",")]
    results: dict[str, dict] = {t: {"saus": [], "test": None} for t in chosen}

    def fitted(name: str, train, test) -> dict:
        path = args.cache / f"{args.features}-{name}.json"
        if path.is_file():
            return {k: np.asarray(v) for k, v in json.loads(path.read_text()).items()}
        if args.score_only:
            raise SystemExit(f"--score-only: {path} is not there yet")
        t = time.time()
        x, y = stack(train, data)
        booster = fit(x, y, SETTING, ROUNDS, 0, args.jobs, names)
        files = {}
        for s in test:
            fx, gold = data[s.key]
            conf = np.zeros((6, 6), np.int64)
            np.add.at(conf, (gold, booster.predict(fx).argmax(1)), 1)
            files[s.file] = files.get(s.file, 0) + conf
        path.write_text(json.dumps({k: v.tolist() for k, v in files.items()}))
        print(f"  {name}: {time.time() - t:.0f}s", flush=True)
        return files

    if args.prefit_reverse:  # a second process fills the cache from the other end, then stops
        fitted("formulas-full", train_f, [*saus, *test_f])
        fitted("both-full", [*saus, *train_f], test_f)
        fitted("saus-full", saus, test_f)
        for k in reversed(range(len(folds))):
            train, test = fold_sides(saus, folds, k)
            fitted(f"both-fold{k}", [*train, *train_f], test)
            fitted(f"saus-fold{k}", train, test)
        return 0
    formulas_only = fitted("formulas-full", train_f, [*saus, *test_f]) if "formulas" in chosen else {}
    saus_files = {f for fold in folds for f in fold}
    for k in range(len(folds)):
        train, test = fold_sides(saus, folds, k) if saus else ([], [])
        keep = set(folds[k])
        results["saus"]["saus"].append(fitted(f"saus-fold{k}", train, test))
        if "saus+formulas" in chosen:
            both = fitted(f"both-fold{k}", [*train, *train_f], test)
            results["saus+formulas"]["saus"].append(both)
        if "formulas" in chosen:
            results["formulas"]["saus"].append({f: m for f, m in formulas_only.items() if f in keep})
    results["saus"]["test"] = fitted("saus-full", saus, test_f)
    if "saus+formulas" in chosen:
        results["saus+formulas"]["test"] = fitted("both-full", [*saus, *train_f], test_f)
    if "formulas" in chosen:
        results["formulas"]["test"] = {f: m for f, m in formulas_only.items()
                                       if f not in saus_files}  # fmt: skip

    rows = []
    print(f"\n{'training':16} {'SAUS macro':>10} {'SAUS derived':>24} {'test macro':>10} "
          f"{'test derived':>24}")  # fmt: skip
    for t in chosen:
        per = [scores(sum(f.values())) for f in results[t]["saus"]]
        iv = file_interval(results[t]["saus"], 1000)
        test = scores(sum(results[t]["test"].values()))
        tiv = file_interval([results[t]["test"]], 1000)
        row = {"training": t, "saus_macro_f1": float(np.mean([p["macro_f1"] for p in per])),
               "saus_derived_f1": float(np.mean([p["derived_f1"] for p in per])),
               "saus_interval": iv, "test_macro_f1": test["macro_f1"],
               "test_derived_f1": test["derived_f1"], "test_interval": tiv,
               "test_per_class": test["per_class"]}  # fmt: skip
        if t != "saus":
            row["saus_gap"] = paired_gap(results[t]["saus"], results["saus"]["saus"], 1000)
            row["test_gap"] = paired_gap([results[t]["test"]], [results["saus"]["test"]], 1000)
        rows.append(row)
        d, td = iv["derived_f1"], tiv["derived_f1"]
        print(f"{t:16} {row['saus_macro_f1']:10.3f} {row['saus_derived_f1']:8.3f} "
              f"[{d[0]:.3f}, {d[1]:.3f}]  {row['test_macro_f1']:10.3f} "
              f"{row['test_derived_f1']:8.3f} [{td[0]:.3f}, {td[1]:.3f}]")  # fmt: skip
    base = rows[0]
    for row in rows[1:]:
        g, tg = row["saus_gap"]["derived_f1"], row["test_gap"]["derived_f1"]
        print(f"{row['training']} - saus, derived F1: SAUS {g['gap']:+.3f} [{g['low']:+.3f}, "
              f"{g['high']:+.3f}]; set test {tg['gap']:+.3f} [{tg['low']:+.3f}, {tg['high']:+.3f}]")  # fmt: skip
    best = max(rows, key=lambda r: (r["saus_derived_f1"] + r["test_derived_f1"]))
    print(f"ratio: best ({best['training']}) SAUS derived F1 / saus alone = "
          f"{best['saus_derived_f1'] / max(base['saus_derived_f1'], 1e-9):.2f}")  # fmt: skip
    targets = [
        {"name": f"SAUS derived F1 ({best['training']})", "value": best["saus_derived_f1"],
         "target": TARGETS["saus_derived_f1"]},
        {"name": f"SAUS macro-F1 ({best['training']})", "value": best["saus_macro_f1"],
         "target": TARGETS["saus_macro_f1"]},
        {"name": f"set test derived F1 ({best['training']})", "value": best["test_derived_f1"],
         "target": TARGETS["formulas_test_derived_f1"]},
    ]  # fmt: skip
    for t in targets:
        t["met"] = bool(t["value"] >= t["target"])
    if args.json:
        args.json.write_text(json.dumps({"results": rows, "targets": targets}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
