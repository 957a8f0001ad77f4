"""Candidate programs and their reranker on cached head scores: the oracle, the fit on a train
sample, the choice on dev, the calibration, and test scored once.

    .venv/bin/python bench/table_qa_programs.py oracle [--split dev]
    .venv/bin/python bench/table_qa_programs.py fit [--train-most 2000] [--test] [--json PATH]
    .venv/bin/python bench/table_qa_programs.py score --model FOLDER --test test test_qc

Reads the caches `bench/table_qa_decoding.py cache` writes (`--split train --most N`,
`--split dev`, `--split test`) under `--cache`. `oracle` prints, per kind of question
(`kinds.question_kind`), the shipped decoding's accuracy (the baseline, the same run) beside the
share of questions with a right answer among the candidates (`programs.candidates`).
`fit` fits each reranker of the grid (`rerank.RerankConfig`) on the train sample, chooses the
best on dev, prints its per-kind dev accuracy beside the shipped decoding's and the error
breakdown before and after, calibrates its confidence on dev (isotonic), chooses the threshold
on dev (the lowest keeping dev's answered accuracy at `--answered`), and with `--test` scores
test and test_qc once for the chosen system. `--save FOLDER` writes the chosen reranker into a
model folder copy (as `fortap tune-qa` does, with the test numbers in metrics.json's `rerank`).
`score` scores the reranker a folder holds on `--test` splits, choosing nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import torch

from fortap.tasks import model_folder
from fortap.tasks.table_qa.answerer import write_rerank
from fortap.tasks.table_qa.breakdown import breakdown
from fortap.tasks.table_qa.checkpoint import TASK
from fortap.tasks.table_qa.decoding import DecodeConfig, Prediction
from fortap.tasks.table_qa.evaluate import scored
from fortap.tasks.table_qa.kinds import KINDS, question_kind
from fortap.tasks.table_qa.operations import OPS
from fortap.tasks.table_qa.questions import QuestionBuilder, spread
from fortap.tasks.table_qa.rerank import Reranker, collect, ece
from fortap.tasks.table_qa.samples import HitabSet
from fortap.tasks.table_qa.scoring import score
from fortap.tasks.table_qa.tune import ANSWERED, GRID, TuneConfig, choose, chosen, rerank_scores
from fortap.text.tokenizer import Tokenizer
from helpers.paths import DATA, REPO, RUNS
from table_qa_errors import show

MODEL = REPO / "models" / "table-qa"


def load(args, split: str, most: int = 0, strict: bool = False):
    meta = model_folder.read_meta(args.model, TASK, tuple(OPS))
    hitab = HitabSet(args.data)
    builder = QuestionBuilder(hitab, Tokenizer(), meta.inputs)
    items = builder.build(spread(hitab.samples(split), most), split).items
    name = f"scores-{split}{f'-{most}' if most else ''}-model.pt"
    cached = torch.load(args.cache / name, weights_only=True)  # our own cache; never a pickle
    items = [i for i in items if i.sample.id in cached]
    cfg = DecodeConfig.of(meta.head.get("decoding", {}))
    groups, labels = collect(items, cached, cfg, strict)
    return items, groups, labels


def per_kind(items, right) -> dict[str, dict]:
    tally = defaultdict(lambda: [0, 0])
    for item, hit in zip(items, right, strict=True):
        for key in (question_kind(item.sample), "all"):
            tally[key][0] += hit
            tally[key][1] += 1
    return {k: {"accuracy": tally[k][0] / tally[k][1], "n": tally[k][1]}
            for k in (*KINDS, "all") if tally[k][1]}  # fmt: skip


def shipped_right(groups, labels) -> list[bool]:
    """The decoded answer (the first candidate, when it ran) right."""
    return [bool(g) and g[0].features[5] == 1.0 and lab[0] for g, lab in zip(groups, labels, strict=True)]


def oracle(args) -> None:
    most = args.train_most if args.split == "train" else 0
    items, groups, labels = load(args, args.split, most)
    base, best = per_kind(items, shipped_right(groups, labels)), per_kind(items, [any(x) for x in labels])
    print(f"{args.split}: {len(items)} questions, {sum(map(len, groups)) / len(groups):.1f} candidates each")
    print(f"{'kind':30} {'n':>5} {'shipped':>8} {'oracle':>8}  x shipped")
    for k in base:
        print(f"{k:30} {base[k]['n']:5d} {base[k]['accuracy']:8.3f} {best[k]['accuracy']:8.3f}  "
              f"{best[k]['accuracy'] / max(base[k]['accuracy'], 1e-9):.2f}")  # fmt: skip
    if args.json:
        write(args.json, [{"kind": k, "n": base[k]["n"], "shipped": base[k]["accuracy"],
                           "oracle": best[k]["accuracy"]} for k in base],
              [{"name": f"oracle {args.split}", "value": best["all"]["accuracy"], "target": None,
                "met": None}])  # fmt: skip


def as_predictions(reranker, groups) -> list[Prediction]:
    preds = []
    for g in groups:
        if not g:
            preds.append(Prediction("none", (), None))
            continue
        c = reranker.ranked(g)[0][0]
        preds.append(Prediction(c.op, c.cells, c.run))
    return preds


def fit(args) -> None:
    train = load(args, "train", args.train_most, args.strict_labels)
    dev = load(args, "dev")
    print(f"train {len(train[0])} questions, dev {len(dev[0])}")
    grid = [c for c in GRID if c.objective in args.objective]
    reranker, rows = choose(train[1:], dev[1:], grid, args.answered,
                            lambda line: print(line, flush=True))  # fmt: skip
    right, raw = chosen(reranker, dev[1], dev[2])
    conf = [reranker.confidence(r) for r in raw]
    base = per_kind(dev[0], shipped_right(dev[1], dev[2]))
    after = per_kind(dev[0], right)
    print(f"\ndev, chosen rounds {reranker.cfg.rounds} leaves {reranker.cfg.leaves}")
    print(f"{'kind':30} {'n':>5} {'shipped':>8} {'reranked':>8}  x shipped")
    for k in base:
        print(f"{k:30} {base[k]['n']:5d} {base[k]['accuracy']:8.3f} {after[k]['accuracy']:8.3f}  "
              f"{after[k]['accuracy'] / max(base[k]['accuracy'], 1e-9):.2f}")  # fmt: skip
    print(f"\nthreshold {reranker.threshold:.3f}: dev answered {answered(conf, right, reranker.threshold)}")
    causes = {}
    if args.breakdown:
        shipped_preds = [Prediction(g[0].op, g[0].cells, g[0].run) if g and g[0].features[5] == 1.0
                         else Prediction("none", (), None) for g in dev[1]]  # fmt: skip
        for name, preds in (("shipped", shipped_preds), ("reranked", as_predictions(reranker, dev[1]))):
            print(f"\nwhere answers fail, dev, {name}:")
            causes[name] = breakdown(dev[0], preds)
            show(causes[name], True)
    results = [{"split": "dev", "kind": k, "n": base[k]["n"], "shipped": base[k]["accuracy"],
                "reranked": after[k]["accuracy"]} for k in base]  # fmt: skip
    results += [{"grid": r} for r in rows]
    targets = [
        {"name": "dev arithmetic", "value": after.get("arithmetic", {}).get("accuracy"), "target": 0.35},
        {"name": "dev superlative", "value": after.get("superlative", {}).get("accuracy"), "target": 0.40},
    ]
    for split in args.test:
        row = score_split(args, reranker, split)
        results.append(row)
        if split == "test":
            targets += split_targets(row)
    judge(targets)
    if args.save:  # as `fortap tune-qa` writes it, with the test numbers scored here
        tested = {f"{r['split']}_{k}": r[k] for r in results if r.get("split") in args.test
                  for k in ("accuracy", "low", "high", "ece", "answered_coverage",
                            "answered_accuracy")}  # fmt: skip
        write_rerank(args.save, reranker, {**rerank_scores(reranker, dev[1:], TuneConfig(
            args.train_most, args.answered, args.strict_labels)), **tested})  # fmt: skip
    if args.json:
        write(args.json, results, targets, {"breakdown": causes})


def score_split(args, reranker, split: str) -> dict:
    """The reranker's execution accuracy on `split` [interval] beside the shipped decoding's,
    its ECE, and its answered share and accuracy at the threshold."""
    items, groups, labels = load(args, split)
    r, t_raw = chosen(reranker, groups, labels)
    s = score([scored(i, p.run, p.op) for i, p in
               zip(items, as_predictions(reranker, groups), strict=True)])  # fmt: skip
    b = score([scored(i, None if not g or g[0].features[5] != 1.0 else g[0].run)
               for i, g in zip(items, groups, strict=True)])  # fmt: skip
    t_conf = [reranker.confidence(x) for x in t_raw]
    e, a = ece(t_conf, r), answered(t_conf, r, reranker.threshold)
    print(f"\n{split}: reranked {s['accuracy']:.3f} [{s['low']:.3f}, {s['high']:.3f}] "
          f"(shipped {b['accuracy']:.3f}, x {s['accuracy'] / b['accuracy']:.3f}), n {s['n']}; "
          f"ECE {e:.3f}; answered {a}")  # fmt: skip
    return {"split": split, "accuracy": s["accuracy"], "low": s["low"], "high": s["high"],
            "shipped": b["accuracy"], "n": s["n"], "ece": e, "answered_coverage": a["coverage"],
            "answered_accuracy": a["accuracy"]}  # fmt: skip


def split_targets(row: dict) -> list[dict]:
    return [{"name": "test accuracy", "value": row["accuracy"], "target": 0.48},
            {"name": "test ECE", "value": row["ece"], "target": 0.05, "below": True},
            {"name": "test answered accuracy", "value": row["answered_accuracy"], "target": 0.70}]


def judge(targets: list[dict]) -> None:
    """Each target's `met`: its value at least the target (at most, for a `below` one)."""
    for t in targets:
        t["met"] = t["value"] is not None and (
            t["value"] <= t["target"] if t.pop("below", False) else t["value"] >= t["target"])


def rescore(args) -> None:
    """`score`: the reranker a model folder holds (`--model`), on `--test` splits, scoring only
    (the splits of a model already chosen: a cache finished late, a check)."""
    meta = model_folder.read_meta(args.model, TASK, tuple(OPS))
    reranker = Reranker.load(args.model, meta.head["rerank"])
    results = [score_split(args, reranker, split) for split in args.test]
    targets = [t for row in results if row["split"] == "test" for t in split_targets(row)]
    judge(targets)
    if args.json:
        write(args.json, results, targets)


def answered(conf, right, t) -> dict:
    kept = [r for c, r in zip(conf, right, strict=True) if c >= t]
    return {"coverage": len(kept) / len(conf), "accuracy": sum(kept) / len(kept) if kept else 0.0}


def write(path: Path, results, targets, extra=None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"results": results, "targets": targets, **(extra or {})}, indent=1) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=("oracle", "fit", "score"))
    p.add_argument("--data", type=Path, default=DATA / "hitab")
    p.add_argument("--model", type=Path, default=MODEL)
    p.add_argument("--cache", type=Path, default=RUNS / "table_qa")
    p.add_argument("--split", default="dev")
    p.add_argument("--train-most", type=int, default=2000)
    p.add_argument("--answered", type=float, default=ANSWERED, help="dev accuracy the threshold keeps")
    p.add_argument("--breakdown", action="store_true")
    p.add_argument("--strict-labels", action="store_true",
                   help="train labels: right only with HiTab's labelled operation (rerank.intended)")
    p.add_argument("--objective", nargs="+", default=["binary", "lambdarank"],
                   help="the grid's LightGBM objectives tried")
    p.add_argument("--test", nargs="*", default=[], help="score these files once (test test_qc)")
    p.add_argument("--save", type=Path, help="write the chosen reranker into this model folder")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    {"oracle": oracle, "fit": fit, "score": rescore}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
