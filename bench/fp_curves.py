"""Learning curves of formula-prediction runs on dev: formula and sketch top-1 against the
training examples seen, beside the dev baselines.

    .venv/bin/python bench/fp_curves.py RUN_DIR [RUN_DIR ...] [--labels a,b] --out PNG
        [--json PATH] [--ymax 0.3]

A RUN_DIR is a fine-tuning run folder (`fortap finetune formula-prediction ... -o OUT` writes
it as `OUT/training`; OUT itself is accepted). Its `metrics.jsonl` holds one line per dev check
with the decoded dev metrics (`eval/formula_top1`, `eval/sketch_top1`, ...) and `examples`, the
training examples seen (updates x batch x grad_accum x ranks); its `dev_baselines.json` holds
the same metrics of the sketch prior, AutoSum (the rules in the paper setting) and fill (the
rules in the sheet setting) on the same dev examples, measured once per run
(`fortap.tasks.formula_prediction.dev_checks`). A resumed run logs some checks twice: the
last line of a step counts.

The PNG has two panels, dev formula top-1 and dev sketch top-1 against examples seen, one
line per run and the first run's baselines as horizontal lines (the table says when runs were
checked on different dev examples or trained on different sets, so their baselines differ).
The table gives, per run, the best dev formula top-1 (f@1), after how many examples, the final
value, the same for sketch top-1 (s@1), the run's own baselines, the ratio of its best formula
top-1 to its AutoSum, and the seconds its dev decoding took in all. Targets (measured, not asserted): per run, best formula top-1 > AutoSum, best
formula top-1 > fill, best sketch top-1 > sketch prior.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from helpers.runs import labelled_runs

METRICS_FILE, BASELINES_FILE = "metrics.jsonl", "dev_baselines.json"
BASELINES = {  # shown name -> (system in dev_baselines.json, line style)
    "sketch prior": ("sketch prior", ":"),
    "AutoSum (paper setting)": ("rules (paper)", "--"),
    "fill (sheet setting)": ("rules (sheet)", "-."),
}
PANELS = (("formula_top1", "dev formula top-1"), ("sketch_top1", "dev sketch top-1"))
WIDTH = 170  # console columns the table needs


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="fine-tuning run folders (with metrics.jsonl)")
    p.add_argument("--labels", help="comma-separated names of the runs (default: folder names)")
    p.add_argument("--out", required=True, help="the PNG to write")
    p.add_argument("--json", help="write results and targets here")
    p.add_argument("--ymax", type=float, default=1.0, help="top of both panels' y axis")
    return p.parse_args(argv)


def run_folder(path: str | Path) -> Path:
    """The folder holding `metrics.jsonl`: the path itself or its `training/`."""
    path = Path(path)
    for folder in (path, path / "training"):
        if (folder / METRICS_FILE).is_file():
            return folder
    raise SystemExit(f"{path}: no {METRICS_FILE} here or in {path / 'training'}")


def read_run(path: str | Path) -> dict:
    """{"checks": [dev check lines, by step, the last of a repeated step], "baselines": the
    dev baselines (or None)}."""
    folder = run_folder(path)
    by_step = {}
    for line in (folder / METRICS_FILE).read_text().splitlines():
        entry = json.loads(line)
        if "eval/formula_top1" in entry:
            by_step[entry["step"]] = entry
    baselines = folder / BASELINES_FILE
    return {
        "folder": str(folder),
        "checks": [by_step[s] for s in sorted(by_step)],
        "baselines": json.loads(baselines.read_text()) if baselines.is_file() else None,
    }


def baseline(run: dict, shown: str, metric: str) -> float | None:
    """A baseline's dev value of `metric` in `run` (None without dev_baselines.json)."""
    systems = (run["baselines"] or {}).get("systems", {})
    return systems.get(BASELINES[shown][0], {}).get(metric)


def summarise(label: str, run: dict) -> dict:
    """One result row: best / final dev values, where the best was, the run's baselines."""
    checks = run["checks"]
    row: dict = {"run": label, "folder": run["folder"], "checks": len(checks)}
    row["dev_n"] = int(checks[-1].get("eval/decoded", 0)) if checks else 0
    for key, _ in PANELS:
        values = [c[f"eval/{key}"] for c in checks]
        best = max(range(len(values)), key=values.__getitem__) if values else None
        row[f"best_{key}"] = values[best] if best is not None else None
        row[f"best_{key}_examples"] = checks[best]["examples"] if best is not None else None
        row[f"final_{key}"] = values[-1] if values else None
    row["examples_seen"] = checks[-1]["examples"] if checks else 0
    row["decode_seconds"] = sum(c.get("eval/decode_seconds", 0.0) for c in checks)
    row["sketch_prior_sketch_top1"] = baseline(run, "sketch prior", "sketch_top1")
    row["autosum_formula_top1"] = baseline(run, "AutoSum (paper setting)", "formula_top1")
    row["fill_formula_top1"] = baseline(run, "fill (sheet setting)", "formula_top1")
    auto, best = row["autosum_formula_top1"], row["best_formula_top1"]
    row["ratio_best_vs_autosum"] = best / auto if auto and best is not None else None
    return row


def targets(rows: list[dict]) -> list[dict]:
    """Per run: its best dev values against its own baselines (measured, not asserted)."""
    out = []
    pairs = (("best formula top-1 > AutoSum", "best_formula_top1", "autosum_formula_top1"),
             ("best formula top-1 > fill", "best_formula_top1", "fill_formula_top1"),
             ("best sketch top-1 > sketch prior", "best_sketch_top1", "sketch_prior_sketch_top1"))  # fmt: skip
    for row in rows:
        for name, value, target in pairs:
            if row[value] is not None and row[target] is not None:
                out.append({"name": f"{name} ({row['run']})", "value": row[value],
                            "target": row[target], "met": row[value] > row[target]})  # fmt: skip
    return out


def plot(runs: dict[str, dict], path: Path, ymax: float = 1.0) -> Path:
    """The two panels of the module doc, with the Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    first = next(iter(runs.values()))
    for ax, (key, title) in zip(axes, PANELS, strict=True):
        for label, run in runs.items():
            xs = [c["examples"] for c in run["checks"]]
            ax.plot(xs, [c[f"eval/{key}"] for c in run["checks"]], "o-", ms=3, label=label)
        for shown, (_, style) in BASELINES.items():
            value = baseline(first, shown, key)
            if value is not None:
                ax.axhline(value, linestyle=style, color="grey", label=f"{shown} {value:.3f}")
        ax.set_xlabel("training examples seen")
        ax.set_ylabel(title)
        ax.set_ylim(0, ymax)
        ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def render(rows: list[dict]) -> RichTable:
    view = RichTable(title="formula prediction on dev: best and final of each run",
                     title_justify="left")  # fmt: skip
    heads = ("run", "dev n", "checks", "best f@1", "at examples", "final f@1", "best s@1",
             "final s@1", "AutoSum f@1", "fill f@1", "prior s@1", "best / AutoSum",
             "decode s")  # fmt: skip
    for i, head in enumerate(heads):
        view.add_column(head, justify="left" if i == 0 else "right", no_wrap=i == 0)
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    for r in rows:
        ratio = r["ratio_best_vs_autosum"]
        view.add_row(
            r["run"], str(r["dev_n"]), str(r["checks"]), pct(r["best_formula_top1"]),
            str(r["best_formula_top1_examples"]), pct(r["final_formula_top1"]),
            pct(r["best_sketch_top1"]), pct(r["final_sketch_top1"]),
            pct(r["autosum_formula_top1"]), pct(r["fill_formula_top1"]),
            pct(r["sketch_prior_sketch_top1"]), "-" if ratio is None else f"{ratio:.2f}",
            f"{r['decode_seconds']:.1f}",
        )  # fmt: skip
    return view


def main(argv=None) -> None:
    args = parse_args(argv)
    console = Console(width=max(Console().width, WIDTH))  # a pipe would squeeze the table
    runs = labelled_runs(args.runs, args.labels, read_run)
    empty = [label for label, run in runs.items() if not run["checks"]]
    if empty:
        raise SystemExit(f"no decoded dev checks in {', '.join(empty)} (evaluation.dev_decode?)")
    rows = [summarise(label, run) for label, run in runs.items()]
    notes = []
    systems = {json.dumps(r["baselines"], sort_keys=True) for r in runs.values()}
    if len(systems) > 1:
        notes.append("the runs' dev baselines differ (other dev examples or training sets): "
                     "the plot draws the first run's")  # fmt: skip
    console.print(render(rows))
    for r in rows:
        ratio = r["ratio_best_vs_autosum"]
        console.print(f"{r['run']}: best dev formula top-1 / AutoSum = "
                      f"{'-' if ratio is None else format(ratio, '.2f')}")  # fmt: skip
    goals = targets(rows)
    for t in goals:
        console.print(f"{'met' if t['met'] else 'not met'}: {t['name']}: "
                      f"{t['value']:.3f} vs {t['target']:.3f}")  # fmt: skip
    for note in notes:
        console.print(f"[yellow]{note}[/]")
    console.print(f"plot: {plot(runs, Path(args.out), args.ymax)}")
    if args.json:
        payload = {"results": rows, "targets": goals, "notes": notes,
                   "curves": {label: [{k: c.get(k) for k in ("step", "examples",
                              "eval/formula_top1", "eval/sketch_top1", "eval/sketch_top5")}
                              for c in run["checks"]] for label, run in runs.items()}}  # fmt: skip
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
