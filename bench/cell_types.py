"""Cell type classification on SAUS: encoders against a cell-feature forest on 5 file-grouped folds.

    .venv/bin/python bench/cell_types.py [--json PATH] [--runs runs/cell_types]
        [--cache runs/cell_types/baselines.json] [--refresh]
        [--hybrid fortap-small,minilm,random] [--hybrid-cache runs/cell_types/hybrid.json]

Every system is scored on the same folds (`fortap.tasks.cell_types.split`, the shipped
`saus_folds.json`) and the same cells (each labelled cell once): macro-F1 over the six classes
pooled per fold, then averaged over the folds; per-class F1; the confusion matrix summed over
the folds; 95 % intervals from resampling each fold's files (`tasks.cell_types.metrics`).

Systems:
- majority class and the random forest (100 trees, balanced_subsample, min_samples_leaf 2) on
  the 43 SAUS features and on the 43 plus position (row/column index and share); computed here
  (cached in --cache; --refresh recomputes) through `tasks.cell_types.baselines`;
- the same forest, and LightGBM (`tasks.cell_types.boosted`: settings and rounds chosen on an
  inner split of the training folds), on the features extracted from each sheet
  (`tasks.cell_types.features`, position included), the ones a user's workbook gets; computed
  and cached as the other baselines (a cache without them gains them), with LightGBM's choice
  per fold beside the cache (`*.choices.json`);
- the fine-tuned encoders, collected from the fold runs that finished under --runs
  (`RUNS/ENCODER/fold-K/metrics.json`, each `fortap finetune cell-types --set data.fold=K`), at the task's
  budget and recipe (`minilm`, `fortap-tiny`, ...) and at other ones (`fortap-tiny-elr1e-3`:
  another encoder learning rate; `...-s2000`: another number of updates).
- with `--hybrid ENCODERS` (`helpers.hybrid_rows`): each encoder's frozen cell states, reduced
  to 32 principal components fitted on the training folds, beside the extracted features under
  the boosted model's head (`hybrid ENCODER`, `tasks.cell_types.hybrid`), and alone under the
  same head (`states ENCODER`); each hybrid's gaps over the boosted model and over its encoder
  alone (and both over that encoder fine-tuned, where `--runs` has it), and the hybrid held to
  the shipped bar and to a gap over the boosted model above 0. Without the flag the bench is
  as before.

Paired gaps (a - b over the folds both finished, the same resampled files for both) for every
encoder and both extracted-feature systems against the forest with position, LightGBM against
the extracted forest, and between encoders. A gap *exceeds the
fold-to-fold spread* when its size is larger than the standard deviation over those folds of
the per-fold scores of either system (the larger of the two); with one shared fold there is no
spread to compare with. The ratio is the best encoder's macro-F1 over the forest's (with
position), measured in this run. The boosted model is held to the issue's bar for a shipped
recipe (`SHIP_TARGETS`, and its gap over the forest with position above 0).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from fortap.tasks.cell_types.baselines import forest, majority
from fortap.tasks.cell_types.boosted import boosted
from fortap.tasks.cell_types.feature_models import feature_forest, labelled_features
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.metrics import confusion, file_interval, paired_gap, scores
from fortap.tasks.cell_types.saus import read_saus
from fortap.tasks.cell_types.split import fold_sides, load_folds
from helpers.hybrid_rows import (
    bar_targets,
    boosted_choices,
    hybrid_folds,
    hybrid_name,
    hybrid_pairs,
)
from helpers.recipe_pairs import recipe_pairs

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "saus_ctc"
RUNS = Path(__file__).resolve().parents[1] / "runs" / "cell_types"  # git-ignored
ENCODERS = ("minilm", "fortap-tiny", "tuta-tiny", "random")
FOREST = "forest+position"
X_FOREST, BOOSTED = "extracted forest+pos", "extracted lightgbm"  # on `features`, position in
BASELINES = ("majority", "forest", FOREST, X_FOREST, BOOSTED)
TARGETS = {"macro_f1": 0.85, "derived_f1": 0.55}
# the shipped recipe with the formula-labelled set (issue 55): SAUS's folds and the set's test
FORMULA_TARGETS = {"saus macro_f1": 0.89, "saus derived_f1": 0.70, "set test derived_f1": 0.85}
SHIP_TARGETS = {"macro_f1": 0.87, "derived_f1": 0.62}  # a shipped recipe's bar (issue 43)


def baseline_folds(cache: Path, refresh: bool, jobs: int = 1) -> dict[str, list[dict[str, list]]]:
    """{system: [{file: confusion} per fold]} of the baselines, from `cache` unless refreshed;
    the baselines a cache lacks are computed and added to it."""
    out = json.loads(cache.read_text()) if cache.is_file() and not refresh else {}
    missing = [name for name in BASELINES if name not in out]
    if not missing:
        return out
    sheets, folds = read_saus(DATA), load_folds()
    extracted = {X_FOREST, BOOSTED} & set(missing)
    data = {s.key: labelled_features(s) for s in sheets} if extracted else {}
    choices = []
    for name in missing:
        out[name] = []
    for k in range(len(folds)):
        train, test = fold_sides(sheets, folds, k)
        for name in missing:
            started = time.perf_counter()
            if name == BOOSTED:
                scored, choice = boosted(train, test, data, jobs=jobs)
                choices.append({"fold": k, "setting": choice.setting, "rounds": choice.rounds,
                                "tried": choice.tried})  # fmt: skip
            else:
                scored = run_baseline(name, train, test, data, jobs)
            files: dict[str, np.ndarray] = {}
            for sheet, (gold, predicted) in zip(test, scored, strict=True):
                files[sheet.file] = files.get(sheet.file, 0) + confusion(gold, predicted)
            out[name].append({f: c.tolist() for f, c in sorted(files.items())})
            print(f"{name} fold {k}: {time.perf_counter() - started:.0f} s", flush=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(out) + "\n")
    if choices:
        choices_file(cache).write_text(json.dumps(choices, indent=1) + "\n")
    return out


def run_baseline(name: str, train: list, test: list, data: dict, jobs: int) -> list:
    """(gold, predicted) per test sheet of one baseline other than the boosted model."""
    if name == "majority":
        return majority(train, test)
    if name == X_FOREST:
        return feature_forest(train, test, data, jobs=jobs)
    return forest(train, test, position=name == FOREST, jobs=jobs)


def choices_file(cache: Path) -> Path:
    return cache.with_name(cache.stem + ".choices.json")


def feature_pairs(names: list[str]) -> list[tuple[str, str]]:
    """The gaps of the systems on extracted features: each against the forest with position
    on SAUS's own features, and the boosted model against the extracted forest."""
    out = [(X_FOREST, FOREST), (BOOSTED, FOREST), (BOOSTED, X_FOREST)]
    return [(a, b) for a, b in out if a in names and b in names]


def run_folds(runs: Path) -> dict[str, dict[int, dict[str, list]]]:
    """{run name: {fold: {file: confusion}}} of the fold runs that finished: the `ENCODERS` at
    the task's budget first, then other budgets (`ENCODER-sSTEPS`)."""
    out: dict[str, dict[int, dict]] = {}
    found = sorted(p.name for p in runs.glob("*") if p.is_dir()) if runs.is_dir() else []
    for name in [e for e in ENCODERS if e in found] + [n for n in found if n not in ENCODERS]:
        for k in range(5):
            path = runs / name / f"fold-{k}" / "metrics.json"
            if path.is_file():
                out.setdefault(name, {})[k] = json.loads(path.read_text())["files"]
    return out


def pairs(names: list[str]) -> list[tuple[str, str]]:
    """The gaps reported: every run against the forest with position; at each pretraining
    recipe fortap vs tuta and each vs its unpretrained start (`helpers.recipe_pairs`, `random`
    where no `minilm` of that recipe ran); MiniLM vs random and vs the tiny pair."""
    out = [(n, FOREST) for n in names] + recipe_pairs(names, "random")
    out += [("minilm", "random"), ("minilm", "fortap-tiny"), ("minilm", "tuta-tiny")]
    known = {*names, FOREST}
    return [(a, b) for a, b in out if a in known and b in known]


def as_arrays(files: dict[str, list]) -> dict[str, np.ndarray]:
    return {f: np.asarray(c) for f, c in files.items()}


def summarise(name: str, by_fold: dict[int, dict[str, list]]) -> dict:
    """Per-fold and mean scores of one system, with the interval of the mean."""
    per_fold = {k: scores(sum(as_arrays(f).values())) for k, f in sorted(by_fold.items())}
    interval = file_interval([as_arrays(by_fold[k]) for k in per_fold])
    mean = {
        key: float(np.mean([s[key] for s in per_fold.values()]))
        for key in ("macro_f1", "derived_f1")
    }
    std = {
        key: float(np.std([s[key] for s in per_fold.values()]))
        for key in ("macro_f1", "derived_f1")
    }
    classes = {
        c: float(np.mean([s["per_class"][c] for s in per_fold.values()])) for c in CELL_TYPES
    }
    pooled = sum(np.asarray(s["confusion"]) for s in per_fold.values())
    return {"system": name, "folds": sorted(per_fold), "per_fold": {k: {"macro_f1": s["macro_f1"],
            "derived_f1": s["derived_f1"]} for k, s in per_fold.items()}, "mean": mean, "std": std,
            "interval": interval, "per_class": classes, "confusion": pooled.tolist()}  # fmt: skip


def gap_row(a: str, b: str, systems: dict, folds: dict) -> dict | None:
    shared = sorted(set(folds[a]) & set(folds[b]))
    if not shared:
        return None
    gap = paired_gap(
        [as_arrays(folds[a][k]) for k in shared], [as_arrays(folds[b][k]) for k in shared]
    )
    row = {"a": a, "b": b, "folds": shared}
    for key in ("macro_f1", "derived_f1"):
        per = [systems[a]["per_fold"][k][key] - systems[b]["per_fold"][k][key] for k in shared]
        spread = max(
            float(np.std([systems[s]["per_fold"][k][key] for k in shared])) for s in (a, b)
        )
        exceeds = None if len(shared) < 2 else abs(gap[key]["gap"]) > spread
        row[key] = {**gap[key], "per_fold": per, "spread": spread, "exceeds_spread": exceeds}
    return row


def print_tables(systems: dict, gaps: list[dict]) -> None:
    print(f"\n{'system':20} " + " ".join(f"{'fold ' + str(k):>7}" for k in range(5))
          + f" {'mean':>7} {'std':>6} {'95% interval':>15} {'derived':>8} {'interval':>15}")  # fmt: skip
    for s in systems.values():
        cells = " ".join(f"{s['per_fold'][k]['macro_f1']:7.3f}" if k in s["per_fold"] else f"{'-':>7}"
                         for k in range(5))  # fmt: skip
        lo, hi = s["interval"]["macro_f1"]
        dlo, dhi = s["interval"]["derived_f1"]
        print(f"{s['system']:20} {cells} {s['mean']['macro_f1']:7.3f} {s['std']['macro_f1']:6.3f} "
              f"[{lo:.3f}, {hi:.3f}] {s['mean']['derived_f1']:8.3f} [{dlo:.3f}, {dhi:.3f}]")  # fmt: skip
    print(f"\nper-class F1 (mean over the system's folds)\n{'system':20} "
          + " ".join(f"{c[:10]:>10}" for c in CELL_TYPES))  # fmt: skip
    for s in systems.values():
        print(f"{s['system']:20} " + " ".join(f"{s['per_class'][c]:10.3f}" for c in CELL_TYPES))
    for s in systems.values():
        if s["system"] in (FOREST, BOOSTED, best_encoder(systems)):
            print(
                f"\nconfusion of {s['system']} (rows gold, columns predicted, summed over its folds)"
            )
            print(f"{'':20} " + " ".join(f"{c[:10]:>10}" for c in CELL_TYPES))
            for c, row in zip(CELL_TYPES, s["confusion"], strict=True):
                print(f"{c:20} " + " ".join(f"{v:10d}" for v in row))
    print("\npaired gaps a - b over shared folds (95 % interval from resampling files)")
    for g in gaps:
        for key in ("macro_f1", "derived_f1"):
            v = g[key]
            flag = {None: "one fold", True: "exceeds", False: "within"}[v["exceeds_spread"]]
            print(f"{g['a']:>19} - {g['b']:<19} {key:10} folds {g['folds']}: {v['gap']:+.3f} "
                  f"[{v['low']:+.3f}, {v['high']:+.3f}] spread {v['spread']:.3f} ({flag})")  # fmt: skip


def best_encoder(systems: dict) -> str | None:
    found = [s for s in systems.values() if s["system"] not in BASELINES]
    return max(found, key=lambda s: s["mean"]["macro_f1"])["system"] if found else None


def target_rows(b: dict, forest_row: dict) -> list[dict]:
    """The acceptance targets of the best encoder `b`: its mean over five folds against the
    fixed targets, and against the forest with position on the same folds."""
    folds = b["folds"]
    targets = []
    for key, target in TARGETS.items():
        value = b["mean"][key]
        forest_value = float(np.mean([forest_row["per_fold"][k][key] for k in folds]))
        targets.append(
            {
                "name": f"{b['system']} {key} (mean of {len(folds)} of 5 folds)",
                "value": value,
                "target": target,
                "met": value >= target and len(folds) == 5,
            }
        )
        targets.append(
            {
                "name": f"{b['system']} {key} above {FOREST} on folds {folds}",
                "value": value,
                "target": forest_value,
                "met": value > forest_value,
            }
        )
    ratio = b["mean"]["macro_f1"] / targets[1]["target"]
    print(f"\nbest encoder {b['system']} (folds {folds}): macro-F1 ratio to {FOREST} on the same "
          f"folds {ratio:.3f}")  # fmt: skip
    return targets


def ship_rows(b: dict, gaps: list[dict]) -> list[dict]:
    """The boosted model against the bar of a shipped recipe: its mean over five folds, and
    its paired gap over the forest with position above 0 (the interval's low end)."""
    return bar_targets(b, gaps, FOREST, SHIP_TARGETS, keys=("macro_f1",))


def recipes(specs: str, ship: str) -> tuple[list[dict], list[dict]]:
    """`--recipes NAME=OUT,...`: boosted runs (`fortap finetune cell-types --set
    model.kind=boosted --set data.all_folds=true`, OUT/metrics.json) side by side: SAUS's five
    held-out folds (mean, file-resampling interval) and the formula-labelled set's splits the
    run scored, each source's share; paired gaps over the first; the targets for `ship`."""
    runs = dict(part.split("=", 1) for part in specs.split(","))
    metrics = {n: json.loads((Path(out) / "metrics.json").read_text()) for n, out in runs.items()}
    folds = {n: dict(enumerate(m["files_by_fold"])) for n, m in metrics.items()}
    systems = {n: summarise(n, f) for n, f in folds.items()}
    first = next(iter(runs))
    print(f"{'recipe':16} {'SAUS macro':>10} {'SAUS derived':>24}  set splits (macro / derived)")
    rows = []
    for n, sy in systems.items():
        sets = {split: {k: v[k] for k in ("macro_f1", "derived_f1", "cells", "interval",
                                          "by_source")}
                for split, v in metrics[n].get("formulas", {}).items()}  # fmt: skip
        gaps = {"saus": gap_row(n, first, systems, folds)} if n != first else {}
        for split, v in metrics[n].get("formulas", {}).items():
            base = metrics[first].get("formulas", {}).get(split)
            if n != first and base:
                gaps[split] = paired_gap([as_arrays(v["files"])], [as_arrays(base["files"])])
        rows.append({"recipe": n, "run": runs[n], "saus": sy, "set": sets, "gaps": gaps})
        d = sy["interval"]["derived_f1"]
        shown = "; ".join(f"{sp} {v['macro_f1']:.3f} / {v['derived_f1']:.3f} [{v['interval']['derived_f1'][0]:.3f}, "
                          f"{v['interval']['derived_f1'][1]:.3f}]" for sp, v in sets.items())  # fmt: skip
        print(f"{n:16} {sy['mean']['macro_f1']:10.3f} {sy['mean']['derived_f1']:8.3f} "
              f"[{d[0]:.3f}, {d[1]:.3f}]  {shown}")  # fmt: skip
        for split, g in gaps.items():
            g = g["derived_f1"]
            print(f"  {n} - {first}, derived F1 on {split}: {g['gap']:+.3f} [{g['low']:+.3f}, "
                  f"{g['high']:+.3f}]")  # fmt: skip
    for split, v in metrics[ship].get("formulas", {}).items():
        print(f"{ship} on the set's {split}, by source: " + "; ".join(
            f"{src} {b['share']:.1%} (derived F1 {b['derived_f1']:.3f})" for src, b in v["by_source"].items()))  # fmt: skip
    chosen, test = systems[ship], metrics[ship].get("formulas", {}).get("test", {})
    print(f"ratio: {ship} SAUS derived F1 / {first} = "
          f"{chosen['mean']['derived_f1'] / max(systems[first]['mean']['derived_f1'], 1e-9):.2f}")
    values = {"saus macro_f1": chosen["mean"]["macro_f1"], "saus derived_f1":
              chosen["mean"]["derived_f1"], "set test derived_f1": test.get("derived_f1")}  # fmt: skip
    targets = [{"name": f"{k} ({ship})", "value": values[k], "target": t,
                "met": values[k] is not None and values[k] >= t} for k, t in FORMULA_TARGETS.items()]  # fmt: skip
    return rows, targets


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, help="write results and targets here")
    ap.add_argument("--runs", type=Path, default=RUNS)
    ap.add_argument("--cache", type=Path, default=RUNS / "baselines.json")
    ap.add_argument("--refresh", action="store_true", help="recompute the baselines")
    ap.add_argument("--jobs", type=int, default=1, help="threads of the forests and LightGBM")
    ap.add_argument("--hybrid", default="", help="comma-separated encoders (fortap-small,minilm,"
                    "random,...): add each one's hybrid and states-alone rows")  # fmt: skip
    ap.add_argument("--hybrid-cache", type=Path, default=RUNS / "hybrid.json")
    ap.add_argument("--hybrid-head", choices=("chosen", "boosted"), default="chosen",
                    help="the hybrid head's settings: chosen on each fold's inner split, or "
                    "the boosted model's choice of that fold (-fx rows)")  # fmt: skip
    ap.add_argument("--cached-only", action="store_true",
                    help="hybrid rows: report the folds cached, compute none")  # fmt: skip
    ap.add_argument("--recipes", default="", help="NAME=OUT,...: compare these boosted runs "
                    "(SAUS folds, the formula-labelled set) instead; the first is the baseline")  # fmt: skip
    ap.add_argument("--ship", default="", help="with --recipes: the run held to the targets "
                    "(default: the last)")  # fmt: skip
    args = ap.parse_args(argv)
    if args.recipes:
        rows, targets = recipes(args.recipes, args.ship or args.recipes.split(",")[-1].split("=")[0])
        for t in targets:
            print(f"target {t['name']}: {t['value']} vs {t['target']} {'met' if t['met'] else 'NOT met'}")
        if args.json:
            args.json.write_text(json.dumps({"results": rows, "targets": targets}, indent=1) + "\n")
        return 0
    encoders = [e for e in args.hybrid.split(",") if e]
    folds = {**baseline_folds(args.cache, args.refresh, args.jobs)}
    folds = {name: dict(enumerate(per)) for name, per in folds.items()} | run_folds(args.runs)
    fx = args.hybrid_head == "boosted"
    fixed = boosted_choices(choices_file(args.cache)) if fx and encoders else []
    hybrids = (hybrid_folds(encoders, DATA, args.hybrid_cache, args.jobs, fixed=fixed,
                            cached_only=args.cached_only) if encoders else {})  # fmt: skip
    systems = {name: summarise(name, by_fold) for name, by_fold in (folds | hybrids).items()}
    runs = [n for n in folds if n not in BASELINES]
    extra = [(n, FOREST) for n in hybrids] + hybrid_pairs(encoders, BOOSTED, list(systems), fx)
    gaps = [g for a, b in feature_pairs(list(folds)) + pairs(runs) + extra
            for g in [gap_row(a, b, systems, folds | hybrids)] if g]  # fmt: skip
    print_tables(systems, gaps)
    best = best_encoder({n: s for n, s in systems.items() if n not in hybrids})
    targets = [] if best is None else target_rows(systems[best], systems[FOREST])
    targets += ship_rows(systems[BOOSTED], gaps) if BOOSTED in systems else []
    targets += [t for e in encoders if hybrid_name(e, fx) in systems
                for t in bar_targets(systems[hybrid_name(e, fx)], gaps, BOOSTED, SHIP_TARGETS)]  # fmt: skip
    for t in targets:
        print(
            f"target {t['name']}: {t['value']:.3f} vs {t['target']:.3f} {'met' if t['met'] else 'NOT met'}"
        )
    if args.json:
        results = list(systems.values()) + [{"gap": g} for g in gaps]
        args.json.write_text(json.dumps({"results": results, "targets": targets}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
