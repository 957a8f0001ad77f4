"""Check a released formula-prediction model against its stored metrics.

    .venv/bin/python bench/fp_release.py check DEST --tables PATH [--json PATH]

A release is made by `fortap release RUN -o DEST --corpus CORPUS` (the model of a finished run
in bfloat16, the corpus split it was tested on, the run's evaluation settings and the stored
weights' metrics; `fortap.tasks.formula_prediction.release` describes the folder). `check`
evaluates DEST again (e.g. in a fresh clone, with `--tables` from `fortap ingest
../shared/data`) and compares with `DEST/metrics.json`, as `fortap check-model DEST` does.

Both print formula and sketch top-1 / top-5 and range accuracy, pooled, and formula top-1 per
workbook, for the reference and the stored weights, and the share of the top-5 candidates on
the test split that parse and print back (`parse_formula`, then `to_text`). Targets: every
metric within 0.5 points of the reference (`release.TOLERANCE`); 100 % of the candidates parse
and print.
"""

from __future__ import annotations

import torch

torch.set_flush_denormal(True)  # before the first parallel op (cpu_stack note §4.6)

import argparse  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

from rich.console import Console  # noqa: E402
from rich.table import Table as RichTable  # noqa: E402

from fortap.tasks.formula_prediction.release import TOLERANCE, check  # noqa: E402


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="evaluate a release and compare with its metrics")
    check.add_argument("dest", help="a release folder")
    check.add_argument("--tables", required=True, help="Table JSONL of `fortap ingest`")
    check.add_argument("--json", help="write results and targets here")
    return p.parse_args(argv)


def main(argv=None) -> None:
    args = parse_args(argv)
    console = Console()
    dest = Path(args.dest)
    report = check(dest, args.tables)
    label = "released metrics"
    rows = report.rows()
    parsed = report.printable()
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
