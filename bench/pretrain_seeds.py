"""The paper's claim over pretraining seeds: ForTaP − TUTA (and each − MiniLM) on cell types and
table QA, as the mean over seeds with a t-interval over seeds.

    .venv/bin/python bench/pretrain_seeds.py RUNS [--json PATH]

RUNS is a folder of fine-tuning runs (`fortap finetune ... -o OUT`) laid out as the GPU leases
left them (`docs/pretraining-pair.md`): `cell_types/ENCODER/fold-K/metrics.json` and
`table_qa/ENCODER/metrics.json`, ENCODER being `minilm` (the MiniLM-size baseline), `random` (the
tiny one's) or `RECIPE-sSEED` (`tuta-s0`, `fortap-s2`, ...). Per encoder: cell types' macro-F1 and derived F1, each the mean over the 5
SAUS folds (an encoder counts only with all 5), and table QA's test execution accuracy. A gap
pairs the two recipes' runs of the same seed; its interval is Student's t over seeds (n − 1
degrees of freedom), so it says how far a recipe's effect stands out of the run-to-run noise
of pretraining. A gap is resolved only when its interval excludes 0 (and the differences vary
at all). A baseline (MiniLM, random) is fine-tuned once, so a gap to it pairs each seed with
that one run: its interval holds the pretraining seeds' noise but not the baseline's own (`baseline_noise` false).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

from fortap.metrics.bootstrap import t_interval
from fortap.tasks.cell_types.metrics import scores

METRICS = ("ct_macro_f1", "ct_derived_f1", "qa_test", "qa_dev")
BASES = ("minilm", "random")  # encoders without table pretraining, each fine-tuned once
SEEDED = re.compile(r"^(?P<recipe>[a-z]+)-s(?P<seed>\d+)$")


def encoder_scores(runs: Path) -> dict[str, dict[str, float]]:
    """{encoder: {metric: value}} of every encoder with finished runs."""
    out: dict[str, dict[str, float]] = {}
    for folder in sorted((runs / "cell_types").glob("*")):
        folds = [folder / f"fold-{k}" / "metrics.json" for k in range(5)]
        if all(f.is_file() for f in folds):
            per = [scores(sum(np.asarray(c) for c in json.loads(f.read_text())["files"].values()))
                   for f in folds]  # fmt: skip
            out.setdefault(folder.name, {})["ct_macro_f1"] = float(
                np.mean([s["macro_f1"] for s in per])
            )
            out[folder.name]["ct_derived_f1"] = float(np.mean([s["derived_f1"] for s in per]))
    for path in sorted((runs / "table_qa").glob("*/metrics.json")):
        systems = json.loads(path.read_text())["systems"]
        for split, key in (("test", "qa_test"), ("dev", "qa_dev")):
            if "model" in systems.get(split, {}):
                out.setdefault(path.parent.name, {})[key] = systems[split]["model"]["accuracy"]
    return out


def by_recipe(encoders: dict[str, dict[str, float]]) -> dict[str, dict[int, dict[str, float]]]:
    """{recipe: {seed: scores}}; MiniLM (no pretraining, one fine-tune) is seed 0 of `minilm`."""
    out: dict[str, dict[int, dict[str, float]]] = {}
    for name, values in encoders.items():
        m = SEEDED.match(name)
        recipe, seed = (m["recipe"], int(m["seed"])) if m else (name, 0)
        out.setdefault(recipe, {})[seed] = values
    return out


def rows_and_gaps(recipes: dict) -> tuple[list[dict], list[dict]]:
    rows = []
    for recipe, seeds in sorted(recipes.items()):
        for metric in METRICS:
            values = [s[metric] for s in seeds.values() if metric in s]
            if values:
                mean, low, high = t_interval(values)
                rows.append({"recipe": recipe, "metric": metric, "seeds": len(values),
                             "values": values, "mean": mean, "low": low, "high": high})  # fmt: skip
    gaps = []
    for a, b in (("fortap", "tuta"), *((r, base) for base in BASES for r in ("fortap", "tuta"))):
        if a not in recipes or b not in recipes:
            continue
        for metric in METRICS:
            diffs = []
            for seed, s in sorted(recipes[a].items()):
                other = recipes[b].get(seed if b not in BASES else 0, {})
                if metric in s and metric in other:
                    diffs.append(s[metric] - other[metric])
            if diffs:
                mean, low, high = t_interval(diffs)
                gaps.append({"gap": f"{a} − {b}", "metric": metric, "seeds": len(diffs),
                             "diffs": diffs, "mean": mean, "low": low, "high": high,
                             "resolved": bool((low > 0 or high < 0) and np.std(diffs) > 0),
                             "baseline_noise": b not in BASES})  # fmt: skip
    return rows, gaps


def show(rows: list[dict], gaps: list[dict]) -> None:
    from rich.table import Table

    from fortap.console import stdout_console

    console = stdout_console()
    table = Table(title="per recipe: mean over seeds [95 % t-interval]")
    for column in ("recipe", "metric", "seeds", "per seed", "mean [interval]"):
        table.add_column(column)
    for r in rows:
        table.add_row(r["recipe"], r["metric"], str(r["seeds"]),
                      " ".join(f"{v:.3f}" for v in r["values"]),
                      f"{r['mean']:.3f} [{r['low']:.3f}, {r['high']:.3f}]")  # fmt: skip
    console.print(table)
    table = Table(title="gaps, paired by seed: mean [95 % t-interval over seeds]")
    for column in ("gap", "metric", "seeds", "per seed", "mean [interval]", "resolved"):
        table.add_column(column)
    for g in gaps:
        table.add_row(g["gap"], g["metric"], str(g["seeds"]),
                      " ".join(f"{v:+.3f}" for v in g["diffs"]),
                      f"{g['mean']:+.3f} [{g['low']:+.3f}, {g['high']:+.3f}]",
                      "yes" if g["resolved"] else "no")  # fmt: skip
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rows, gaps = rows_and_gaps(by_recipe(encoder_scores(args.runs)))
    show(rows, gaps)
    if args.json:
        targets = [{"name": f"{g['gap']} {g['metric']} resolved over {g['seeds']} seeds",
                    "value": round(g["mean"], 4), "target": "interval excludes 0",
                    "met": g["resolved"]} for g in gaps if g["gap"] == "fortap − tuta"]  # fmt: skip
        clean = lambda v: None if isinstance(v, float) and not np.isfinite(v) else v  # noqa: E731
        results = [{k: clean(v) for k, v in r.items()} for r in rows + gaps]
        args.json.write_text(json.dumps({"results": results, "targets": targets}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
