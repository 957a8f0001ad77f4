"""A wall-clock-bounded ForTaP pretraining run from the corpus, against majority baselines.

    .venv/bin/python bench/pretrain.py [--minutes 30 | --steps N] [--corpus PATH] [--json PATH]
        [--out DIR]

`--steps N` trains exactly N updates instead (no calibration, no time limit, no clock pacing):
a run that gives the same numbers on any machine, to check a change leaves them alone.

The `small` preset (MiniLM size: 6 layers, hidden 384) initialised from MiniLM (`--init minilm`)
trains with every objective — TUTA's three (MLM at the paper's weight 0.3, cell cloze, table
context) plus NRP and NCP at weight 4 and formula MLM at 1 (`FORTAP_RECIPE`) — on the corpus
train split's formula samples (all samples for a TUTA-only `--objectives`; formula samples
carry no table context, as ForTaP's inputs do not, so table context has no targets here). A fixed
subset of the dev split is evaluated at step 0 and at the end: at most `--eval-per-book`
samples of each workbook (default 32; the dev split's two largest workbooks would otherwise
hold 64 % of its NRP pairs and half of its NCP groups), then at most `--eval-samples`
(default 0 = all), targets drawn once with a fixed seed. The baselines are measured on the
same subset. `--eval-every N` also evaluates it every N updates inside the loop and prints
the dev metrics over the run (their time comes out of the training budget; the training
seconds exclude them, each counted as long as step 0's). `--minutes` bounds the whole run: the
step-0 evaluation and a calibration on a copy of the model (the loop's throughput over 4
updates after 2 untimed ones) are timed, the rest (minus one more evaluation) is the training
budget, the schedule's length is set from the calibrated update time (plus 25 %, as a busy
calibration once cut a run to half its budget), `training.max_minutes` stops the loop at the
budget in any case, and `training.pace_by_clock` moves the schedule on with the clock, so the
learning rate has decayed to 0 when the budget is spent however the calibration erred.

The end evaluation goes workbook by workbook (`evaluate_by_book`), and a second table gives,
for the gaps that decide the targets, a 95 % interval from resampling the dev workbooks with
replacement, with the number of workbooks that carry the targets and how many equally sized
ones they amount to (`fortap.training.baseline_gaps.gap_rows`): the dev split's NRP pairs come from a few
dozen workbooks, so a gap of 0.05 may lie inside the interval. NRP's hand position rule is
given against the majority class the same way, as a measure of how wide the bar is.

Per objective the table shows the dev metric at the start and at the end, the majority-class
baseline measured on the same dev targets (`fortap.objectives.baselines`: NRP = pair accuracy
of the majority class (negative; its F1 is 0), with the F1 of calling every pair positive beside
it as the stricter F1 reference, NCP = the training split's most frequent operator class, with the dev
split's own most frequent class beside it as `acc_oracle`, formula MLM = the most frequent
operator + a uniform guess among the example's cells for references), and end/baseline.
Throughput: samples/s (updates × batch × accumulation / training seconds) and tokens/s
(mean of the loop's logged windows).

`--objectives` picks another set (e.g. `mlm,cell_cloze,table_context` for a TUTA-only run);
with `--out DIR` the trained encoder is saved in `DIR/encoder` (`FortapEncoder.save_pretrained`),
the starting point of formula prediction's TUTA and ForTaP rows.

Targets: NRP pair accuracy, NCP accuracy and formula-MLM accuracy each beat their majority
baseline *clearly*, defined as end >= baseline + 0.05 (absolute); NRP F1 is also checked against
the all-positive F1 and NCP against the dev-majority oracle, reported either way. NRP's
`acc_rule` / `f1_rule` rows compare with a rule that reads positions only (the three headers
before the formula header are its references) and `acc_fit` with the majority label per
offset learnt from the training pairs (what positions learnt from the training workbooks are
worth on others), NCP's `acc_rule` with the training split's most frequent class per operand
shape (cells, one row, one column, span): how much of each a positional shortcut solves.
"""

from __future__ import annotations

import torch

torch.set_flush_denormal(True)  # before the first parallel op (cpu_stack note §4.6)

import argparse  # noqa: E402
import copy  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from fortap.encoding.collate import collate  # noqa: E402
from fortap.encoding.formula_targets import FORMULA_KEY  # noqa: E402
from fortap.objectives.baselines import (  # noqa: E402
    formula_mlm_baseline,
    ncp_baseline,
    ncp_class_counts,
    ncp_position_rule,
    nrp_baseline,
    nrp_fitted_position_rule,
    nrp_position_rule,
)
from fortap.training.baseline_gaps import baseline_tallies, gap_rows, print_gaps  # noqa: E402
from fortap.training.by_workbook import evaluate_by_book  # noqa: E402
from fortap.training.loop import train  # noqa: E402
from fortap.training.pretrain import setup_pretrain  # noqa: E402
from fortap.training.run_config import load_config  # noqa: E402
from helpers.paths import CORPUS  # noqa: E402

OBJECTIVES = ("mlm", "cell_cloze", "table_context", "nrp", "ncp", "formula_mlm")
MARGIN = 0.05  # "clearly": at least this much above the baseline, absolute
GOALS = (("nrp", "acc", "NRP pair accuracy vs majority class"),
         ("nrp", "f1", "NRP F1 vs all-positive (stricter)"), ("ncp", "acc", "NCP accuracy"),
         ("ncp", "acc_oracle", "NCP accuracy vs dev majority (oracle)"),
         ("formula_mlm", "acc", "formula-MLM accuracy"))  # fmt: skip
# With a ForTaP objective: NRP and NCP weigh 4 (they carry fewer labels per sample than the
# token objectives), and only samples built around a formula are trained on, as ForTaP's own
# pretraining data is (it starts from TUTA, which saw the formula-free tables).
FORTAP_RECIPE = ("objectives.nrp.weight=4", "objectives.ncp.weight=4",
                 "data.formula_samples_only=true")  # fmt: skip
WARMUP_STEPS = 2
CALIBRATION_STEPS = 4  # a multiple of WARMUP_STEPS (the logging window)


def baselines(examples: list, train_samples: list) -> dict[str, dict[str, float]]:
    """Majority-class baselines of the ForTaP objectives on the dev examples' targets. NCP's is
    the training split's most frequent class (a constant classifier fitted on train); the dev
    split's own most frequent class is kept beside it as `acc_oracle` (it has seen dev labels).
    NRP also gets a rule that reads positions only (`nrp_position_rule`: the 3
    headers before the formula header are the referenced ones) as `acc_rule` / `f1_rule`, the
    same kind of rule fitted on the training samples' header pairs
    (`nrp_fitted_position_rule`) as `acc_fit`, and NCP one fitted on the training
    groups (`ncp_position_rule`: the most frequent class per operand shape) as `acc_rule`;
    reported, no target."""
    values = {
        name: [e.targets.get(name) for e in examples] for name in ("nrp", "ncp", "formula_mlm")
    }
    cells = [len(e.cell_coords) for e in examples]
    train_facts = [x.targets.get(FORMULA_KEY) for x in train_samples]
    train_top = ncp_class_counts(train_facts).most_common(1)[0][0]
    rule = nrp_position_rule(examples)
    fit = nrp_fitted_position_rule(train_samples, examples)
    return {
        "nrp": {
            **nrp_baseline(values["nrp"]),
            "acc_rule": rule["acc"],
            "f1_rule": rule["f1"],
            "acc_fit": fit["acc"],
        },
        "ncp": {
            **ncp_baseline(values["ncp"], majority=train_top),
            "acc_oracle": ncp_baseline(values["ncp"])["acc"],
            "acc_rule": ncp_position_rule(train_samples, examples)["acc"],
        },
        "formula_mlm": formula_mlm_baseline(values["formula_mlm"], cells),
    }


def run_config(objectives: str, eval_samples: int, eval_per_book: int, extra: list[str]):
    """The run's config: the `small` preset with the recipe (`FORTAP_RECIPE` when a ForTaP
    objective is on), the dev subset's size and the `--set` overrides `extra`."""
    fortap = bool(set(objectives.split(",")) & {"nrp", "ncp", "formula_mlm"})
    overrides = [
        "objectives.use=" + objectives, "objectives.mlm.weight=0.3",
        *(FORTAP_RECIPE if fortap else ()),
        "training.progress=false", "training.eval_every=0", "training.save_every=0",
        f"data.eval_samples={eval_samples}", f"data.eval_per_book={eval_per_book}", *extra,
    ]  # fmt: skip
    return load_config("small", overrides)


def calibrate(setup, cfg) -> float:
    """Seconds per update on a copy of the model: the loop's own throughput over
    `CALIBRATION_STEPS` updates after `WARMUP_STEPS` (the first updates allocate and spin up
    threads, and the run's closing checkpoint is not an update: timing both once planned half
    the updates a 30-minute budget had room for). The stream's position is restored."""
    state = setup.stream.state_dict()
    model = copy.deepcopy(setup.model)
    steps = WARMUP_STEPS + CALIBRATION_STEPS
    short = dataclasses.replace(
        cfg.training, steps=steps, save_every=0, eval_every=0, log_every=WARMUP_STEPS
    )
    with tempfile.TemporaryDirectory() as tmp:
        result = train(model, setup.stream, short, cfg.optim, tmp, resume=False)
    setup.stream.load_state_dict(state)
    per_update = cfg.training.batch_size * cfg.training.grad_accum
    windows = result.history[1:]  # the loop logs every WARMUP_STEPS updates; skip the first
    return sum(per_update / w["samples_per_s"] for w in windows) / len(windows)


def metric_rows(start: dict, end: dict, base: dict) -> list[dict]:
    rows = []
    for name, metrics in (
        ("mlm", ("acc",)), ("cell_cloze", ("acc",)), ("table_context", ("acc",)),
        ("nrp", ("f1", "f1_rule", "acc", "acc_rule", "acc_fit", "tag_acc")),
        ("ncp", ("acc", "acc_oracle", "acc_rule")),
        ("formula_mlm", ("acc", "acc_op", "acc_ref")),
    ):  # fmt: skip
        for metric in metrics:
            base_metric = metric.removesuffix("_oracle").removesuffix("_rule").removesuffix("_fit")
            key = f"eval/{base_metric}/{name}"
            if key not in end:
                continue
            b = base.get(name, {}).get(metric)
            e = end[key]
            rows.append({
                "objective": name, "metric": metric, "start": start.get(key), "end": e,
                "baseline": b, "end_over_baseline": e / b if b else None,
                "n": end.get(f"eval/n/{name}"),
            })  # fmt: skip
    return rows


def print_report(rows: list[dict], goals: list[dict], info: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    fmt = lambda v: "-" if v is None else f"{v:.4f}"  # noqa: E731
    for name in OBJECTIVES:
        mine = [r for r in rows if r["objective"] == name]
        if not mine:
            continue
        table = Table(title=f"{name} (dev, n={mine[0]['n']:.0f})")
        for col in ("metric", "start", "end", "baseline", "end/baseline"):
            table.add_column(col, justify="right")
        for r in mine:
            ratio = r["end_over_baseline"]
            table.add_row(r["metric"], fmt(r["start"]), fmt(r["end"]), fmt(r["baseline"]),
                          "-" if ratio is None else f"{ratio:.2f}x")  # fmt: skip
        console.print(table)
    table = Table(title="targets (end >= baseline + 0.05)")
    for col in ("target", "value", "baseline", "met"):
        table.add_column(col, justify="right")
    for g in goals:
        table.add_row(g["name"], fmt(g["value"]), fmt(g["baseline"]), str(g["met"]))
    console.print(table)
    console.print(
        f"updates {info['updates']}  train {info['train_s']:.0f}s  "
        f"samples/s {info['samples_per_s']:.2f}  tokens/s {info['tokens_per_s']:.0f}  "
        f"eval {info['eval_s']:.0f}s  calibration {info['s_per_update']:.2f}s/update"
    )


def print_trajectory(entries: list[dict]) -> None:
    """Dev metrics at every evaluation of the run (`--eval-every`)."""
    from rich.console import Console
    from rich.table import Table

    keys = [("acc", "nrp"), ("f1", "nrp"), ("acc", "ncp"), ("acc", "formula_mlm"), ("acc", "mlm")]
    table = Table(title="dev during training")
    table.add_column("step", justify="right")
    for metric, name in keys:
        table.add_column(f"{name} {metric}", justify="right")
    for e in entries:
        cells = (e.get(f"eval/{metric}/{name}") for metric, name in keys)
        table.add_row(str(e["step"]), *("-" if v is None else f"{v:.4f}" for v in cells))
    Console().print(table)


def plan(args, setup, cfg, began: float, eval_s: float):
    """The `--minutes` run: seconds per update (calibrated on a copy of the model), planned
    updates and the loop's config."""
    s_per_update = calibrate(setup, cfg)
    budget = 60 * args.minutes - (time.perf_counter() - began) - 1.1 * eval_s
    if budget < 3 * s_per_update:
        raise SystemExit(f"--minutes {args.minutes} leaves {budget:.0f}s to train: too little")
    # Plan 25 % more updates than the calibration predicts: on a shared machine a busy
    # calibration would otherwise end the schedule early; `max_minutes` stops it on time and
    # `pace_by_clock` has the schedule end there.
    # Evaluations inside the loop (`--eval-every`) take their time out of the schedule's.
    evals = budget / (args.eval_every * s_per_update + eval_s) if args.eval_every else 0
    steps = int(1.25 * (budget - int(evals) * eval_s) / s_per_update)
    training = dataclasses.replace(
        cfg.training, steps=steps, max_minutes=budget / 60, pace_by_clock=True, log_every=20,
        eval_every=args.eval_every,
    )  # fmt: skip
    print(f"budget {budget:.0f}s -> {steps} updates at {s_per_update:.2f}s/update")
    return s_per_update, steps, training


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="wall-clock budget")
    parser.add_argument(
        "--steps", type=int, default=0, help="train exactly N updates (no calibration, no clock)"
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="default: runs/corpus")
    parser.add_argument("--json", type=Path, help="write results and targets here")
    parser.add_argument("--out", type=Path, help="run folder (default: a temporary one)")
    parser.add_argument("--eval-samples", type=int, default=0, help="dev samples (0 = all)")
    parser.add_argument(
        "--eval-per-book", type=int, default=32, help="dev samples of one workbook, at most"
    )
    parser.add_argument(
        "--eval-every", type=int, default=0, help="also evaluate dev every N updates (0 = no)"
    )
    parser.add_argument("--set", action="append", default=[], help="dotted config override")
    parser.add_argument(
        "--objectives",
        default=",".join(OBJECTIVES),
        help="comma-separated objectives (e.g. mlm,cell_cloze,table_context = TUTA)",
    )
    args = parser.parse_args()
    began = time.perf_counter()
    cfg = run_config(args.objectives, args.eval_samples, args.eval_per_book, args.set)
    setup = setup_pretrain(cfg, args.corpus, "minilm")
    print(setup.init_note)
    print(f"setup {time.perf_counter() - began:.0f}s; {len(setup.eval_examples)} dev examples")
    base = baselines(setup.eval_examples, setup.stream.items)
    collators = setup.model.target_collators()
    batch_of = lambda examples: collate(examples, target_collators=collators)  # noqa: E731
    by_book = lambda: evaluate_by_book(  # noqa: E731
        setup.model, setup.eval_examples, batch_of, cfg.training.batch_size
    )
    tick = time.perf_counter()
    start, _ = by_book()
    eval_s = time.perf_counter() - tick
    print(f"step-0 evaluation {eval_s:.0f}s")
    if args.steps:  # fixed length: no calibration, no clock (same updates on every machine)
        s_per_update, steps = 0.0, args.steps
        training = dataclasses.replace(
            cfg.training, steps=steps, log_every=20, eval_every=args.eval_every
        )
    else:
        s_per_update, steps, training = plan(args, setup, cfg, began, eval_s)
    inside = setup.eval_batches if args.eval_every else ()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        tick = time.perf_counter()
        result = train(setup.model, setup.stream, training, cfg.optim, out, inside, resume=False)
        train_s = time.perf_counter() - tick
        if args.out:
            setup.model.encoder.save_pretrained(out / "encoder")  # for formula prediction
    evaluated = [e for e in result.history if any(k.startswith("eval/") for k in e)]
    train_s -= eval_s * len(evaluated)  # (an estimate: each evaluation as long as step 0's)
    end, end_books = by_book()  # by workbook, for the intervals (the loop's last one is not)
    logged = [e for e in result.history if "tokens_per_s" in e]
    per_update = cfg.training.batch_size * cfg.training.grad_accum
    info = {
        "updates": result.step, "planned_updates": steps, "train_s": train_s,
        "samples_per_s": result.step * per_update / train_s,
        "tokens_per_s": sum(e["tokens_per_s"] for e in logged) / max(1, len(logged)),
        "eval_s": eval_s, "s_per_update": s_per_update, "dev_examples": len(setup.eval_examples),
        "total_s": time.perf_counter() - began, "margin": MARGIN,
    }  # fmt: skip
    rows = metric_rows(start, end, base)
    gaps = gap_rows(end_books, baseline_tallies(setup.eval_examples, base))
    goals = []
    for name, metric, label in GOALS:
        if name not in args.objectives.split(","):
            continue
        value, b = end.get(f"eval/{metric.removesuffix('_oracle')}/{name}"), base[name][metric]
        met = value is not None and value >= b + MARGIN
        goals.append({"name": f"{label} >= baseline + {MARGIN}", "value": value,
                      "target": b + MARGIN, "baseline": b, "met": met})  # fmt: skip
    print_report(rows, goals, info)
    print_gaps(gaps)
    if evaluated:
        print_trajectory([{"step": 0, **start}, *evaluated])
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        data = {"results": rows, "targets": goals, "gaps": gaps, "run": info,
                "history": result.history}  # fmt: skip
        args.json.write_text(json.dumps(data, indent=2))


if __name__ == "__main__":
    main()
