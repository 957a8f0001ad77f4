"""Table-QA decoding rules on cached model scores: choose them on dev, in seconds a rule.

    .venv/bin/python bench/table_qa_decoding.py cache [--model models/table-qa] [--split dev]
        [--cut overlap|named] [--out runs/table_qa]
    .venv/bin/python bench/table_qa_decoding.py sweep [--split dev] [--cut overlap|named]
        [--json PATH]

`cache` runs the model once over every question of the file (inputs as the model's folder
says, or with `--cut` overriding how a table over the budget is cut: `inputs.CUTS`) and keeps
its raw scores, the operation logits and the cell logits, in
`runs/table_qa/scores-SPLIT-CUT.pt` (git-ignored). `sweep` rebuilds the same questions
(no model), decodes the cached scores with each rule of the grid
(`fortap.tasks.table_qa.decoding.DecodeConfig`) and prints each rule's execution accuracy
beside the shipped decoding (`DecodeConfig()` off: the baseline, in the same run), with the
ratio. Rules are chosen on dev; test is cached and scored once, for the chosen rule only
(`sweep --split test --only NAME`). `--breakdown` adds each rule's error causes
(`bench/table_qa_errors.py`'s table, from the same cached scores).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import torch

from fortap.tasks.table_qa.breakdown import breakdown
from fortap.tasks.table_qa.checkpoint import load_qa_model
from fortap.tasks.table_qa.decoding import DecodeConfig, QAScores, decode
from fortap.tasks.table_qa.evaluate import scored
from fortap.tasks.table_qa.inputs import CUT
from fortap.tasks.table_qa.questions import QuestionBuilder, spread
from fortap.tasks.table_qa.samples import HitabSet
from fortap.tasks.table_qa.scoring import score
from fortap.tasks.table_qa.tune import cache_scores
from fortap.text.tokenizer import Tokenizer
from helpers.paths import DATA, REPO, RUNS
from table_qa_errors import show

MODEL = REPO / "models" / "table-qa"


def build(args, inputs):
    hitab = HitabSet(args.data)
    builder = QuestionBuilder(hitab, Tokenizer(), inputs, args.cut or CUT)
    return builder.build(spread(hitab.samples(args.split), getattr(args, "most", 0))).items


def cache_path(args) -> Path:
    most = f"-{args.most}" if getattr(args, "most", 0) else ""
    return args.out / f"scores-{args.split}{most}-{args.cut or 'model'}.pt"


def cache(args) -> None:
    torch.set_num_threads(1)
    model, inputs = load_qa_model(args.model)
    path, started = cache_path(args), time.perf_counter()
    cache_scores(model, build(args, inputs), path,  # resumable: saved after each part
                 lambda done, n: print(f"{done}/{n} {time.perf_counter() - started:.0f} s", flush=True))  # fmt: skip
    print(f"wrote {path}")


def grid() -> dict[str, DecodeConfig]:
    """The rules tried: the shipped decoding first (the baseline), each lever alone, then
    together."""
    rules = {"shipped": DecodeConfig()}
    for w in (0.5, 1.0, 1.5, 2.0):
        rules[f"unmatched {w}"] = DecodeConfig(unmatched_weight=w)
    for w in (0.5, 1.0, 1.5):
        rules[f"prefix {w}"] = DecodeConfig(prefix_weight=w)
    for u, w in ((1.0, 1.0), (1.0, 1.5), (1.5, 1.0), (1.5, 1.5), (2.0, 1.0)):
        rules[f"unmatched {u} prefix {w}"] = DecodeConfig(unmatched_weight=u, prefix_weight=w)
    rules["shapes"] = DecodeConfig(op_shapes=True)
    rules["unmatched 1.0 prefix 1.0 shapes"] = DecodeConfig(
        unmatched_weight=1.0, prefix_weight=1.0, op_shapes=True
    )
    return rules


def sweep(args) -> None:
    _, inputs = load_qa_model(args.model)
    items = build(args, inputs)
    cached = torch.load(cache_path(args), weights_only=True)  # our own cache; never a pickle
    rules = grid()
    if args.only:
        rules = {name: rules[name] for name in args.only}
    rows, found = [], {}
    for name, rule in rules.items():
        found[name] = [decode(QAScores(*cached[i.sample.id]), i.example, i.paths, rule)
                       for i in items]  # fmt: skip
        s = score([scored(i, p.run, p.op) for i, p in zip(items, found[name], strict=True)])
        rows.append({"split": args.split, "cut": args.cut or "model", "rule": name,
                     "config": dataclasses.asdict(rule), **{k: s[k] for k in
                     ("accuracy", "low", "high", "n")}})  # fmt: skip
    base = rows[0]["accuracy"]
    print(f"{'rule':32} {'accuracy':>8}  {'95 % interval':16} {'n':>5}  x first")
    for r in rows:
        interval = f"[{r['low']:.3f}, {r['high']:.3f}]"
        print(f"{r['rule']:32} {r['accuracy']:8.3f}  {interval:16} {r['n']:5d}  "
              f"{r['accuracy'] / base:.3f}")  # fmt: skip
    causes = {}
    if args.breakdown:
        for name in rules:
            print(f"\nwhere answers fail, {args.split}, rule {name}:")
            causes[name] = breakdown(items, found[name])
            show(causes[name], True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"results": rows, "breakdown": causes}, indent=1) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("command", choices=("cache", "sweep"))
    p.add_argument("--data", type=Path, default=DATA / "hitab")
    p.add_argument("--model", type=Path, default=MODEL)
    p.add_argument("--split", default="dev")
    p.add_argument("--cut", help="override the input cut (inputs.CUTS)")
    p.add_argument("--out", type=Path, default=RUNS / "table_qa")
    p.add_argument("--most", type=int, default=0,
                   help="at most this many questions, spread over the file (0: all)")
    p.add_argument("--only", nargs="+", help="sweep: only these rules of the grid")
    p.add_argument("--breakdown", action="store_true", help="sweep: each rule's error causes")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    (cache if args.command == "cache" else sweep)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
