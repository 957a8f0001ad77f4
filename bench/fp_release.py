"""Release a fine-tuned formula-prediction model, and check a released one.

    .venv/bin/python bench/fp_release.py release RUN_OUT DEST --tables PATH --corpus DIR [--json PATH]
    .venv/bin/python bench/fp_release.py check DEST --tables PATH [--json PATH]

`release` stores the model of a finished run (`RUN_OUT/model`) in DEST with its weights in
bfloat16 (safetensors + config.json, `save_formula_model(..., dtype=torch.bfloat16)`), the
corpus split it was tested on (`DEST/split.json`, so DEST alone says which workbooks are test)
and the run's evaluation settings (`DEST/release.json`). It then evaluates DEST from the stored
weights, as `fortap evaluate formula-prediction` does (the setting and sequence length come
from `DEST/inputs.json`), and writes those metrics to `DEST/metrics.json`: the numbers a
release reports are the stored weights' own. The baseline measured in the same run is the
run's float32 model (`RUN_OUT/metrics.json`).

`check` evaluates DEST again (e.g. in a fresh clone, with `--tables` from `fortap ingest
../shared/data`) and compares with `DEST/metrics.json`.

Both print formula and sketch top-1 / top-5 and range accuracy, pooled, and formula top-1 per
workbook, for the reference and the stored weights, and the share of the top-5 candidates on
the test split that parse and print back (`parse_formula`, then `to_text`). Targets: every
metric within 0.5 points of the reference; 100 % of the candidates parse and print.
"""

from __future__ import annotations

import torch

torch.set_flush_denormal(True)  # before the first parallel op (cpu_stack note §4.6)

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from rich.console import Console  # noqa: E402
from rich.table import Table as RichTable  # noqa: E402

from fortap.errors import FortapError  # noqa: E402
from fortap.formula import parse_formula  # noqa: E402
from fortap.formula.printer import to_text  # noqa: E402
from fortap.tasks.formula_prediction.checkpoint import (  # noqa: E402
    load_formula_model,
    load_inputs,
    save_formula_model,
)
from fortap.tasks.formula_prediction.config import (  # noqa: E402
    FormulaRunConfig,
    FPData,
    FPEvaluation,
)
from fortap.tasks.formula_prediction.decoding import DecodeConfig  # noqa: E402
from fortap.tasks.formula_prediction.run import run_evaluate  # noqa: E402

METRICS = ("formula_top1", "formula_top5", "sketch_top1", "sketch_top5", "range_acc")
TOLERANCE = 0.005  # 0.5 points
RELEASE = "release.json"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    rel = sub.add_parser("release", help="store a run's model in bfloat16 and measure it")
    rel.add_argument("run", help="a finished `fortap finetune formula-prediction -o` folder")
    rel.add_argument("dest", help="the release folder (created)")
    rel.add_argument("--corpus", required=True, help="the corpus whose split.json the run used")
    check = sub.add_parser("check", help="evaluate a release and compare with its metrics")
    check.add_argument("dest", help="a release folder")
    for q in (rel, check):
        q.add_argument("--tables", required=True, help="Table JSONL of `fortap ingest`")
        q.add_argument("--json", help="write results and targets here")
    return p.parse_args(argv)


def settings_of(run_config: dict) -> dict:
    """The parts of a run's config that decide its test metrics (split caps, prior, beam)."""
    data, ev, dec = run_config["data"], run_config["evaluation"], run_config["decoding"]
    return {
        "data": {"train_per_book": data["train_per_book"], "max_train": data["max_train"]},
        "evaluation": {"test_per_book": ev["test_per_book"], "max_test": ev["max_test"]},
        "decoding": {"beam": dec["beam"], "top_k": dec["top_k"]},
        "seed": run_config["training"]["seed"],
    }


def release(run: Path, dest: Path, corpus: Path) -> dict:
    """Write DEST (module doc); the run's float32 metrics are returned as the reference."""
    reference = json.loads((run / "metrics.json").read_text())
    model = load_formula_model(run / "model")
    dest.mkdir(parents=True, exist_ok=True)
    save_formula_model(model, dest, load_inputs(run / "model"), dtype=torch.bfloat16)
    shutil.copyfile(corpus / "split.json", dest / "split.json")
    (dest / RELEASE).write_text(json.dumps(settings_of(reference["config"]), indent=1) + "\n")
    return reference


def evaluate(dest: Path, tables: str) -> tuple[dict, list[dict]]:
    """metrics.json and the prediction records of DEST evaluated from its stored weights."""
    s = json.loads((dest / RELEASE).read_text())
    cfg = FormulaRunConfig(
        data=FPData(corpus=str(dest), **s["data"]),
        evaluation=FPEvaluation(model=str(dest), **s["evaluation"]),
        decoding=DecodeConfig(**s["decoding"]),
    )
    with tempfile.TemporaryDirectory() as out:
        run = run_evaluate([tables], out, cfg, Console(quiet=True))
        return json.loads((Path(out) / "metrics.json").read_text()), run.records


def printable(records: list[dict], k: int = 5) -> dict:
    """How many of the top-k candidates parse (`parse_formula`) and print back (`to_text`)."""
    total = ok = 0
    failed = []
    for record in records:
        for cand in record["candidates"][:k]:
            total += 1
            try:
                to_text(parse_formula(cand["formula"]).ast)
                ok += 1
            except (FortapError, ValueError) as err:
                failed.append(f"{cand['formula']}: {err}")
    return {"candidates": total, "parse_and_print": ok, "share": ok / max(1, total),
            "examples": failed[:5]}  # fmt: skip


def rows_of(reference: dict, stored: dict) -> list[dict]:
    out = []
    for name in (*METRICS, "formula_top1_per_book"):
        a, b = reference["systems"]["model"][name], stored["systems"]["model"][name]
        out.append({"metric": name, "reference": a, "stored": b, "diff": b - a})
    return out


def main(argv=None) -> None:
    args = parse_args(argv)
    console = Console()
    dest = Path(args.dest)
    if args.command == "release":
        reference = release(Path(args.run), dest, Path(args.corpus))
        label = "run (float32)"
    else:
        reference = json.loads((dest / "metrics.json").read_text())
        label = "released metrics"
    stored, records = evaluate(dest, args.tables)
    if args.command == "release":
        (dest / "metrics.json").write_text(json.dumps(stored, indent=1) + "\n")
    rows = rows_of(reference, stored)
    parsed = printable(records)
    view = RichTable(title=f"{dest}: {label} vs the stored bfloat16 weights (test split)",
                     title_justify="left")  # fmt: skip
    for head in ("metric", label, "stored", "diff (points)", "ratio"):
        view.add_column(head, justify="left" if head == "metric" else "right")
    for r in rows:
        ratio = f"{r['stored'] / r['reference']:.3f}" if r["reference"] else "-"
        view.add_row(r["metric"], f"{100 * r['reference']:.1f}", f"{100 * r['stored']:.1f}",
                     f"{100 * r['diff']:+.2f}", ratio)  # fmt: skip
    console.print(view)
    console.print(f"top-5 candidates that parse and print: {parsed['parse_and_print']} of "
                  f"{parsed['candidates']} ({100 * parsed['share']:.1f} %)")  # fmt: skip
    for example in parsed["examples"]:
        console.print(f"   {example}", markup=False, highlight=False)
    targets = [{"name": f"{r['metric']} within 0.5 points of the {label}", "value": r["diff"],
                "target": TOLERANCE, "met": abs(r["diff"]) <= TOLERANCE} for r in rows]  # fmt: skip
    targets.append({"name": "top-5 candidates that parse and print", "value": parsed["share"],
                    "target": 1.0, "met": parsed["share"] == 1.0})  # fmt: skip
    for t in targets:
        console.print(f"{'met' if t['met'] else 'not met'}: {t['name']}: {t['value']:+.4f}")
    if args.json:
        payload = {"results": rows, "targets": targets, "parse": parsed}
        Path(args.json).write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
