"""Finished formula-prediction runs compared on their test split: each run's model beside the
baselines, and each run's gap to the first run over the same test targets.

    .venv/bin/python bench/fp_runs.py OUT [OUT ...] [--labels a,b] [--json PATH]

An OUT is a `fortap finetune formula-prediction ... -o OUT` folder: its `metrics.json` holds
the test metrics of the model and of the baselines measured in the same run on the same test
examples (the input-blind sketch prior, AutoSum = the rules in the paper setting, fill = the
rules in the sheet setting), pooled and averaged per workbook; its `predictions.jsonl` holds
each test target's ranked guesses, read back per target with the run's own gold match
(`fortap.tasks.formula_prediction.hits.record_hits`) for the gaps between runs.

Per run the table gives formula and sketch top-1, pooled and per workbook, formula top-5 and
the best dev formula top-1 of its dev checks (`training/metrics.jsonl`). A second table gives
each run's gap to the first run (the baseline run, e.g. one without augmentation) in formula
and sketch top-1, pooled and per workbook, with a 95 % interval from resampling test workbooks
(`fortap.metrics.bootstrap.bootstrap_gap`: the same targets in both runs, paired). The
runs must share their test targets (same split, seed and caps); the bench checks that, unless
`--common` restricts every run to the targets all of them share (runs on different table sets,
e.g. with and without some data folders): restricted runs are then recounted from their
per-target hits, and the baselines are those of a run tested on exactly the shared targets.
With `training/augment_counts.json` present, the share of draws each augmentation changed is
printed. Targets (measured, not asserted): per paper-setting run, formula top-1 > AutoSum and
sketch top-1 > sketch prior, pooled; per sheet-setting run (`data.setting=sheet`, the other
formulas visible), formula top-1 >= the fill rule's, pooled and per workbook, with the gap's
interval.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.metrics.bootstrap import book_tallies, bootstrap_gap, per_workbook_mean
from fortap.tasks.formula_prediction.hits import read_predictions, record_hits
from helpers.runs import labelled_runs

BASELINES = {"sketch prior": "sketch prior", "AutoSum": "rules (paper)", "fill": "rules (sheet)"}
METRICS = ("formula_top1", "sketch_top1")
WIDTH = 170


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="finished fine-tuning output folders")
    p.add_argument("--labels", help="comma-separated names of the runs (default: folder names)")
    p.add_argument(
        "--common",
        action="store_true",
        help="compare on the test targets every run shares (runs on other splits)",
    )
    p.add_argument("--json", help="write results and targets here")
    return p.parse_args(argv)


def read_run(path: str | Path) -> dict:
    """metrics.json, the per-target top-1 hits, dev checks and augmentation counts of a run."""
    out = Path(path)
    if not (out / "metrics.json").is_file():
        raise SystemExit(f"{out}: no metrics.json (an unfinished run?)")
    metrics = json.loads((out / "metrics.json").read_text())
    targets, books, hits = [], [], {m: [] for m in (*METRICS, "formula_top5")}
    for rec in read_predictions(out):
        targets.append((rec["book"], rec["sheet"], rec["cell"]))
        books.append(rec["book"])
        got = record_hits(rec, k=5)
        for name, found in hits.items():
            found.append(float(got[name]))
    checks = []
    log = out / "training" / "metrics.jsonl"
    if log.is_file():
        checks = [e for e in map(json.loads, log.read_text().splitlines())
                  if "eval/formula_top1" in e]  # fmt: skip
    counts = out / "training" / "augment_counts.json"
    return {"folder": str(out), "metrics": metrics, "targets": targets, "books": books,
            "hits": hits, "checks": checks,
            "counts": json.loads(counts.read_text()) if counts.is_file() else {}}  # fmt: skip


def metric(system: dict, name: str, mode: str) -> float:
    """A system's test metric: pooled, or averaged per workbook."""
    if mode == "pooled":
        return system[name]
    return system["by_workbook"][name]["per_workbook"]


def restrict(run: dict, keep: set) -> dict:
    """`run` on the targets in `keep` alone: its model metrics are then recounted from
    its per-target hits (`summarise`), and it reads its baselines from a run tested on exactly
    those targets (`common_baselines`)."""
    if set(run["targets"]) == keep:
        return run
    at = [i for i, t in enumerate(run["targets"]) if t in keep]
    return {**run, "restricted": True, "targets": [run["targets"][i] for i in at],
            "books": [run["books"][i] for i in at],
            "hits": {m: [h[i] for i in at] for m, h in run["hits"].items()}}  # fmt: skip


def recounted(run: dict) -> dict:
    """The model's test metrics of a restricted run, from its per-target hits."""
    out = {"n": len(run["targets"]), "books": len(set(run["books"])),
           "formula_top5": sum(run["hits"]["formula_top5"]) / max(1, len(run["targets"])),
           "by_workbook": {}}  # fmt: skip
    for name in METRICS:
        out[name] = sum(run["hits"][name]) / max(1, len(run["targets"]))
        mean = per_workbook_mean(book_tallies(run["books"], run["hits"][name]))
        out["by_workbook"][name] = {"per_workbook": mean}
    return out


def summarise(label: str, run: dict, baselines: dict | None = None) -> dict:
    """A run's row; `baselines`: the systems of a run tested on the same (restricted) targets."""
    systems = run["metrics"]["systems"]
    if run.get("restricted"):
        systems = {**(baselines or {}), "model": recounted(run)}
    model = systems["model"]
    row = {"run": label, "folder": run["folder"], "n": model["n"], "books": model["books"],
           "augment": run["metrics"]["config"]["data"].get("augment", {}),
           "setting": run["metrics"]["config"]["data"].get("setting", "paper"),
           "fill_gap": model.get("gaps", {}).get("rules (sheet)", {}).get("formula_top1"),
           "formula_top5": model["formula_top5"]}  # fmt: skip
    for name in METRICS:
        for mode in ("pooled", "per_workbook"):
            row[f"{name}_{mode}"] = metric(model, name, mode)
            for shown, system in BASELINES.items():
                found = systems.get(system)
                row[f"{shown}_{name}_{mode}"] = metric(found, name, mode) if found else None
    # the sketch hits read back from predictions.jsonl must give the run's own number
    recount = sum(run["hits"]["sketch_top1"]) / max(1, len(run["hits"]["sketch_top1"]))
    if abs(recount - model["sketch_top1"]) > 1e-9:
        raise SystemExit(
            f"{label}: sketch top-1 from predictions {recount} != {model['sketch_top1']}"
        )
    checks = run["checks"]
    best = max(checks, key=lambda c: c["eval/formula_top1"]) if checks else None
    row["dev_best_formula_top1"] = best["eval/formula_top1"] if best else None
    row["dev_best_step"] = best["step"] if best else None
    draws = run["counts"].get("draws", 0)
    row["augmented_share"] = {k: v / draws for k, v in run["counts"].items()
                              if k != "draws" and draws}  # fmt: skip
    return row


def gaps(base: dict, run: dict) -> dict:
    """`run` - `base` in each metric, pooled and per workbook, with workbook-bootstrap intervals."""
    if run["targets"] != base["targets"]:
        raise SystemExit(f"{run['folder']} and {base['folder']} were tested on different targets")
    out = {}
    for name in METRICS:
        a = book_tallies(run["books"], run["hits"][name])
        b = book_tallies(base["books"], base["hits"][name])
        for mode in ("pooled", "per_workbook"):
            out[f"{name}_{mode}"] = bootstrap_gap(a, b, per_workbook=mode == "per_workbook")
    return out


def sheet_goals(r: dict) -> list[dict]:
    """A sheet-setting run against the fill rule on the same targets: formula top-1 >= fill,
    pooled and per workbook, with the gap's 95 % workbook-bootstrap interval (metrics.json)."""
    out = []
    for mode in ("pooled", "per_workbook"):
        mine, fill = r[f"formula_top1_{mode}"], r[f"fill_formula_top1_{mode}"]
        goal = {"name": f"formula top-1 >= fill, {mode.replace('_', ' ')} ({r['run']})",
                "value": mine, "target": fill, "met": mine >= fill}  # fmt: skip
        gap = (r["fill_gap"] or {}).get(mode)
        if gap:
            goal |= {"gap": gap["gap"], "low": gap["low"], "high": gap["high"]}
        out.append(goal)
    return out


def render(rows: list[dict]) -> RichTable:
    view = RichTable(title="formula prediction on test: model and baselines (same targets)",
                     title_justify="left")  # fmt: skip
    heads = ("run", "n", "books", "f@1", "f@1/book", "f@5", "s@1", "s@1/book", "AutoSum f@1",
             "AutoSum f@1/book", "prior s@1", "prior s@1/book", "fill f@1", "dev best f@1")  # fmt: skip
    for i, head in enumerate(heads):
        view.add_column(head, justify="left" if i == 0 else "right", no_wrap=i == 0)
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}"  # noqa: E731
    for r in rows:
        view.add_row(
            r["run"], str(r["n"]), str(r["books"]), pct(r["formula_top1_pooled"]),
            pct(r["formula_top1_per_workbook"]), pct(r["formula_top5"]), pct(r["sketch_top1_pooled"]),
            pct(r["sketch_top1_per_workbook"]), pct(r["AutoSum_formula_top1_pooled"]),
            pct(r["AutoSum_formula_top1_per_workbook"]), pct(r["sketch prior_sketch_top1_pooled"]),
            pct(r["sketch prior_sketch_top1_per_workbook"]), pct(r["fill_formula_top1_pooled"]),
            f"{pct(r['dev_best_formula_top1'])} @{r['dev_best_step']}",
        )  # fmt: skip
    return view


def render_gaps(rows: list[dict], base: str) -> RichTable:
    view = RichTable(title=f"gap to {base} on the same test targets, points (95 % interval "
                     "over test workbooks)", title_justify="left")  # fmt: skip
    for i, head in enumerate(("run", "f@1", "f@1/book", "s@1", "s@1/book")):
        view.add_column(head, justify="left" if i == 0 else "right", no_wrap=i == 0)
    for r in rows[1:]:
        cells = [f"{100 * g['gap']:+.1f} [{100 * g['low']:+.1f}, {100 * g['high']:+.1f}]"
                 for g in (r["gaps"][f"{m}_{mode}"] for m in METRICS
                           for mode in ("pooled", "per_workbook"))]  # fmt: skip
        view.add_row(r["run"], *cells)
    return view


def main(argv=None) -> None:
    args = parse_args(argv)
    console = Console(width=max(Console().width, WIDTH))
    runs = labelled_runs(args.runs, args.labels, read_run)
    baselines = None
    if args.common:
        keep = set.intersection(*(set(run["targets"]) for run in runs.values()))
        runs = {label: restrict(run, keep) for label, run in runs.items()}
        full = [run for run in runs.values() if not run.get("restricted")]
        baselines = full[0]["metrics"]["systems"] if full else None
        console.print(f"--common: {len(keep)} test targets shared by every run")
    rows = [summarise(label, run, baselines) for label, run in runs.items()]
    first = next(iter(runs))
    base = runs[first]
    for row, run in zip(rows, runs.values(), strict=True):
        row["gaps"] = gaps(base, run)
    console.print(render(rows))
    if len(rows) > 1:
        console.print(render_gaps(rows, first))
    goals = []
    for r in rows:
        f1, auto = r["formula_top1_pooled"], r["AutoSum_formula_top1_pooled"]
        s1, prior = r["sketch_top1_pooled"], r["sketch prior_sketch_top1_pooled"]
        ratio = f"{f1 / auto:.2f}" if auto else "-"
        console.print(f"{r['run']}: test formula top-1 / AutoSum = {ratio}; augmented draws: "
                      + (", ".join(f"{k} {v:.2f}" for k, v in r["augmented_share"].items())
                         or "none"))  # fmt: skip
        if auto is None or prior is None:  # no run was tested on exactly the shared targets
            continue
        if r["setting"] == "sheet":  # the fill rule sees the same formulas: it is the baseline
            goals += sheet_goals(r)
            continue
        goals += [
            {"name": f"formula top-1 > AutoSum ({r['run']})", "value": f1, "target": auto,
             "met": f1 > auto},
            {"name": f"sketch top-1 > sketch prior ({r['run']})", "value": s1, "target": prior,
             "met": s1 > prior},
        ]  # fmt: skip
    for t in goals:
        interval = (f" (gap {t['gap']:+.3f}, 95 % interval [{t['low']:+.3f}, {t['high']:+.3f}])"
                    if "gap" in t else "")  # fmt: skip
        console.print(f"{'met' if t['met'] else 'not met'}: {t['name']}: "
                      f"{t['value']:.3f} vs {t['target']:.3f}{interval}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps({"results": rows, "targets": goals}, indent=1))


if __name__ == "__main__":
    main()
