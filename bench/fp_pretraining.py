"""The pretraining comparison (issue 21, step 5): fine-tuned runs grouped by their start encoder,
training share and setting, each beside the rules and the prior on the same test targets.

    .venv/bin/python bench/fp_pretraining.py OUT [OUT ...] [--labels a,b] [--json PATH]

An OUT is a finished `fortap finetune formula-prediction ... -o OUT` folder (`read_run`).
Its own config says what it is: the start encoder (`encoder.name`: random = no pretraining,
minilm, tuta, fortap), the training share (`data.train`: full, or low_resource = the paper's
20 %) and the setting (`data.setting`: paper, or sheet = the other formulas shown).

Three tables:
1. per run, formula / sketch / range top-1 and top-5 pooled with their 95 % intervals
   (`metrics.json`: intervals from resampling test workbooks), and formula top-1 per workbook;
2. the baselines measured in each setting's reference run: the sketch prior, AutoSum (the
   paper setting's rules) and fill (the sheet setting's);
3. each start's gap to the reference run of its setting and share (the first `random` run; no
   pretraining), formula and sketch top-1, pooled and per workbook, paired over the same test
   targets with a 95 % workbook-bootstrap interval (`gaps`); and ForTaP − TUTA where
   both ran. The gaps use the first run of each start in a group (a note names any other: give
   the seeds of one start in separate calls).

Targets (measured, never asserted): each pretrained encoder's formula top-1 gap to no
pretraining, pooled, is `met` when its interval lies above 0 (a resolved gain), and the same for
ForTaP over TUTA.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.metrics.bootstrap import book_tallies, bootstrap_gap
from fortap.tasks.formula_prediction.hits import read_predictions, record_hits
from helpers.runs import labelled_runs

METRICS = ("formula_top1", "sketch_top1")  # the paired gaps' metrics
SHOWN = ("formula_top1", "formula_top5", "sketch_top1", "sketch_top5", "range_top1", "range_top5")
BASELINES = ("sketch prior", "rules (paper)", "rules (sheet)")
WIDTH = 200


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="+", help="finished fine-tuning output folders")
    p.add_argument("--labels", help="comma-separated names of the runs (default: folder names)")
    p.add_argument("--json", help="write results and targets here")
    return p.parse_args(argv)


def read_run(path: str | Path) -> dict:
    """A run's metrics.json and its per-target hits, read back from predictions.jsonl with the
    run's own gold match (`hits.record_hits`), for the paired gaps."""
    out = Path(path)
    if not (out / "metrics.json").is_file():
        raise SystemExit(f"{out}: no metrics.json (an unfinished run?)")
    targets, books, hits = [], [], {m: [] for m in METRICS}
    for rec in read_predictions(out):
        targets.append((rec["book"], rec["sheet"], rec["cell"]))
        books.append(rec["book"])
        got = record_hits(rec, k=5)
        for name, found in hits.items():
            found.append(float(got[name]))
    return {"folder": str(out), "metrics": json.loads((out / "metrics.json").read_text()),
            "targets": targets, "books": books, "hits": hits}  # fmt: skip


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


def kind(run: dict) -> tuple[str, str, str]:
    """(setting, training share, start encoder) from the run's own config."""
    cfg = run["metrics"]["config"]
    data = cfg["data"]
    return data.get("setting", "paper"), data.get("train", "full"), cfg["encoder"]["name"]


def row(label: str, run: dict) -> dict:
    setting, share, encoder = kind(run)
    model = run["metrics"]["systems"]["model"]
    out = {"run": label, "folder": run["folder"], "setting": setting, "train": share,
           "encoder": encoder, "n": model["n"], "books": model["books"]}  # fmt: skip
    for name in SHOWN:
        got = model["by_workbook"][name]
        out[name] = {k: got[k] for k in ("pooled", "pooled_low", "pooled_high")}
    book = model["by_workbook"]["formula_top1"]
    out["formula_top1_per_workbook"] = {
        k: book[k] for k in ("per_workbook", "per_workbook_low", "per_workbook_high")
    }
    return out


def baseline_rows(refs: dict[tuple[str, str], dict]) -> list[dict]:
    """Each reference run's baselines (the same targets as every run of its group)."""
    out = []
    for (setting, share), run in refs.items():
        systems = run["metrics"]["systems"]
        for name in BASELINES:
            if name not in systems:
                continue
            got = systems[name]["by_workbook"]
            out.append({"setting": setting, "train": share, "system": name,
                        **{m: got[m]["pooled"] for m in SHOWN if m in got},
                        "formula_top1_per_workbook": got["formula_top1"]["per_workbook"]})  # fmt: skip
    return out


def pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def with_interval(d: dict, key: str = "pooled") -> str:
    return f"{pct(d[key])} [{pct(d[key + '_low'])}, {pct(d[key + '_high'])}]"


def gap_text(g: dict) -> str:
    return f"{100 * g['gap']:+.1f} [{100 * g['low']:+.1f}, {100 * g['high']:+.1f}]"


def render(rows: list[dict], bases: list[dict], gap_rows: list[dict]) -> list[RichTable]:
    runs = RichTable(title="test, pooled with 95 % interval (workbook bootstrap); % ",
                     title_justify="left")  # fmt: skip
    heads = ("run", "setting", "train", "encoder", "n", "books", "formula@1", "formula@1/book",
             "formula@5", "sketch@1", "sketch@5", "range@1", "range@5")  # fmt: skip
    for i, head in enumerate(heads):
        runs.add_column(head, justify="left" if i < 4 else "right", no_wrap=i == 0)
    for r in rows:
        runs.add_row(
            r["run"], r["setting"], r["train"], r["encoder"], str(r["n"]), str(r["books"]),
            with_interval(r["formula_top1"]), with_interval(r["formula_top1_per_workbook"], "per_workbook"),
            *(with_interval(r[m]) for m in SHOWN[1:]),
        )  # fmt: skip
    base = RichTable(title="baselines on the same targets, %", title_justify="left")
    for i, head in enumerate(("setting", "train", "system", "formula@1", "formula@1/book",
                              "formula@5", "sketch@1", "sketch@5", "range@1", "range@5")):  # fmt: skip
        base.add_column(head, justify="left" if i < 3 else "right")
    for b in bases:
        base.add_row(b["setting"], b["train"], b["system"], pct(b.get("formula_top1")),
                     pct(b["formula_top1_per_workbook"]), *(pct(b.get(m)) for m in SHOWN[1:]))  # fmt: skip
    gap = RichTable(title="gap to the reference, points (95 % interval over test workbooks, paired)",
                    title_justify="left")  # fmt: skip
    for i, head in enumerate(("run", "minus", "formula@1", "formula@1/book", "sketch@1",
                              "sketch@1/book")):  # fmt: skip
        gap.add_column(head, justify="left" if i < 2 else "right")
    for g in gap_rows:
        gap.add_row(g["run"], g["minus"], *(gap_text(g["gaps"][f"{m}_{mode}"])
                                            for m in METRICS for mode in ("pooled", "per_workbook")))  # fmt: skip
    return [runs, base, gap]


def compare(runs: dict[str, dict]) -> tuple[list[dict], list[dict], list[dict], list[dict]]:
    """The rows, the baselines, the paired gaps and the targets (module doc)."""
    rows = [row(label, run) for label, run in runs.items()]
    groups: dict[tuple[str, str], dict[str, str]] = {}  # (setting, share) -> encoder -> label
    for label, run in runs.items():
        setting, share, encoder = kind(run)
        group = groups.setdefault((setting, share), {})
        if encoder in group:  # another seed of the same start: compare seeds in separate calls
            print(f"note: {label} repeats {encoder} in ({setting}, {share}); its gaps use "
                  f"{group[encoder]}, the first run of that start")  # fmt: skip
        group.setdefault(encoder, label)
    refs = {g: runs[enc["random"]] for g, enc in groups.items() if "random" in enc}
    gap_rows, goals = [], []
    for (setting, share), encoders in groups.items():
        pairs = [(e, "random") for e in encoders if e != "random" and "random" in encoders]
        if {"tuta", "fortap"} <= set(encoders):
            pairs.append(("fortap", "tuta"))
        for mine, minus in pairs:
            a, b = runs[encoders[mine]], runs[encoders[minus]]
            found = gaps(b, a)
            gap_rows.append({"run": encoders[mine], "minus": encoders[minus], "setting": setting,
                             "train": share, "gaps": found})  # fmt: skip
            g = found["formula_top1_pooled"]
            goals.append({"name": f"{mine} - {minus}, formula top-1 pooled ({setting}, {share})",
                          "value": g["gap"], "target": 0.0, "met": g["low"] > 0,
                          "low": g["low"], "high": g["high"]})  # fmt: skip
    return rows, baseline_rows(refs), gap_rows, goals


def main(argv=None) -> None:
    args = parse_args(argv)
    console = Console(width=max(Console().width, WIDTH))
    runs = labelled_runs(args.runs, args.labels, read_run)
    rows, bases, gap_rows, goals = compare(runs)
    for view in render(rows, bases, gap_rows):
        console.print(view)
    for t in goals:
        verdict = "resolved gain" if t["met"] else "not resolved"
        console.print(f"{verdict}: {t['name']}: {100 * t['value']:+.1f} points, 95 % interval "
                      f"[{100 * t['low']:+.1f}, {100 * t['high']:+.1f}]")  # fmt: skip
    if args.json:
        results = ([{"kind": "run", **r} for r in rows] + [{"kind": "baseline", **b} for b in bases]
                   + [{"kind": "gap", **g} for g in gap_rows])  # fmt: skip
        out = {"results": results, "targets": goals}
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
