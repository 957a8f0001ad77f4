"""Fine-tuning speed: the shared training loop against the hand loop it replaced.

    .venv/bin/python bench/finetune_speed.py --baseline DIR [--tables PATH] [--steps N]
        [--rounds R] [--encoder minilm|random] [--threads N] [--json PATH]

Formula prediction used to train with its own loop (`train_formula_prediction`); it now goes
through `fortap.training.loop.train`. `--baseline DIR` is a checkout of the commit before that
change (`git worktree add DIR base18`); each timed run is a fresh process whose `PYTHONPATH`
is this checkout's `src` (the shared loop) or `DIR/src` (the hand loop), and the two alternate
(A B B A ...) so a machine busy with other work slows both alike. Both runs fine-tune the same
encoder on the same examples (the kept formulas of the first `--max-tables` tables of
`--tables`, 128 tokens), with the same batch, seed, learning rates, sketch warm-up, no dev
checks, and fp32 (the hand loop had no bf16; the shared loop's `bf16` is set off). A run's time
is the whole fine-tuning call: the decoder's construction, the updates and, for the shared
loop, its end checkpoint (which the hand loop did not write); building the examples, loading
the encoder and an untimed 1-update warm-up run before it (one-time imports) are not timed.

Columns: loop, round, updates, seconds, updates/s, and a CRC-32 of the final parameters; per
round the ratio of the two, also with the shared loop's end checkpoint taken out. The
targets: the shared loop's updates/s (median over rounds) at least 1.0x the hand loop's, and
every run ending with bit-identical parameters (the shared loop reproduces the hand loop's
trajectory: same batches, warm-up, clipping, schedule).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path

from helpers import paths

REPO = paths.REPO
TABLES = str(paths.TABLES)  # runs/tables/tables.jsonl: `fortap ingest ... -o runs/tables`


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--baseline", type=Path, help="checkout of the commit before (its src/)")
    p.add_argument("--tables", default=TABLES, help="Table JSONL (fortap ingest)")
    p.add_argument("--max-tables", type=int, default=200, help="tables the examples come from")
    p.add_argument("--steps", type=int, default=20, help="updates per timed run")
    p.add_argument("--rounds", type=int, default=3, help="timed runs of each loop")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--encoder", default="minilm", choices=("minilm", "random"))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", help="write results and targets here")
    p.add_argument("--worker", choices=("shared", "hand"), help=argparse.SUPPRESS)
    return p.parse_args(argv)


def examples(args):
    """The training examples and the vocabulary size, through whichever fortap is on the path."""
    from fortap.table.io import read_jsonl
    from fortap.text.tokenizer import Tokenizer

    try:
        from fortap.tasks.formula_prediction.examples import (
            FormulaExamplesConfig,
            formula_examples,
            with_serialize,
        )
    except ImportError:  # the commit before: one module
        from fortap.tasks.formula_prediction import (
            FormulaExamplesConfig,
            formula_examples,
            with_serialize,
        )
    tokenizer = Tokenizer()
    cfg = with_serialize(FormulaExamplesConfig(), max_seq_len=128)
    tables = list(islice(read_jsonl(args.tables), args.max_tables))
    return [ex for t in tables for ex in formula_examples(t, tokenizer, cfg)], tokenizer.vocab_size


def encoder_of(args, vocab: int):
    import torch

    from fortap.model.config import ModelConfig
    from fortap.model.encoder import FortapEncoder
    from fortap.model.pretrained import load_minilm

    torch.manual_seed(0)
    if args.encoder == "minilm":
        return load_minilm(None)[0]
    return FortapEncoder(ModelConfig.tiny(vocab_size=vocab, hidden_dropout=0.0))


def time_hand(args, train, encoder) -> float:
    import random

    from fortap.tasks.formula_finetune import FinetuneConfig, train_formula_prediction

    from fortap.tasks.formula_prediction.decoder import DecoderConfig
    from fortap.training.optim import OptimConfig

    cfg = FinetuneConfig(
        steps=args.steps, sketch_warmup=args.steps // 4, batch_size=args.batch_size,
        eval_every=0, optim=OptimConfig(lr=1e-4, head_lr_scale=10.0, warmup=0.05),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0),
    )  # fmt: skip
    start = time.perf_counter()
    model = train_formula_prediction(train, [], encoder, cfg, random.Random(0))
    return time.perf_counter() - start, model


def time_shared(args, train, encoder) -> float:
    import tempfile

    import fortap.training.loop as loop
    from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPTraining
    from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction
    from fortap.tasks.recipe import Optim

    save = loop.save_checkpoint

    def timed_save(*a, **k):  # the end checkpoint's time, reported beside the whole call's
        tick = time.perf_counter()
        try:
            return save(*a, **k)
        finally:
            CHECKPOINT_SECONDS.append(time.perf_counter() - tick)

    loop.save_checkpoint = timed_save

    cfg = FormulaRunConfig(
        optim=Optim(lr=1e-3, encoder_lr=1e-4),
        training=FPTraining(steps=args.steps, batch_size=args.batch_size, dev_checks=0,
                            bf16="off", progress=False),
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        model, _ = finetune_formula_prediction(train, [], encoder, cfg, tmp, resume=False)
        return time.perf_counter() - start, model


CHECKPOINT_SECONDS: list[float] = []


def worker(args) -> None:
    import torch

    torch.set_flush_denormal(True)
    torch.set_num_threads(args.threads)
    train, vocab = examples(args)
    encoder = encoder_of(args, vocab)
    timed = time_hand if args.worker == "hand" else time_shared
    # an untimed 1-update run first: one-time costs (AdamW's first construction imports
    # torch._dynamo, seconds on a busy machine) are no loop's speed
    timed(argparse.Namespace(**{**vars(args), "steps": 1}), train, copy.deepcopy(encoder))
    CHECKPOINT_SECONDS.clear()
    seconds, model = timed(args, train, encoder)
    print(json.dumps({"seconds": seconds, "examples": len(train), "params": checksum(model),
                      "checkpoint_seconds": sum(CHECKPOINT_SECONDS)}))  # fmt: skip


def checksum(model) -> int:
    """CRC-32 over every parameter's bytes in name order: equal only for bit-equal weights."""
    import zlib

    import torch

    crc = 0
    for _, p in sorted(model.state_dict().items()):
        crc = zlib.crc32(p.detach().contiguous().reshape(-1).view(torch.uint8).numpy(), crc)
    return crc


def run_once(args, loop: str) -> dict:
    src = REPO / "src" if loop == "shared" else args.baseline / "src"
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, __file__, "--worker", loop, "--tables", args.tables,
           "--max-tables", str(args.max_tables), "--steps", str(args.steps),
           "--batch-size", str(args.batch_size), "--encoder", args.encoder,
           "--threads", str(args.threads)]  # fmt: skip
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{loop} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.worker:
        worker(args)
        return
    if args.baseline is None or not (args.baseline / "src" / "fortap").is_dir():
        raise SystemExit("--baseline DIR: a checkout of the commit before (git worktree add)")
    rows = []
    for r in range(args.rounds):
        for loop in ("hand", "shared") if r % 2 == 0 else ("shared", "hand"):
            got = run_once(args, loop)
            rows.append({"loop": loop, "round": r, "updates": args.steps,
                         "seconds": got["seconds"], "examples": got["examples"],
                         "updates_per_s": args.steps / got["seconds"],
                         "checkpoint_seconds": got["checkpoint_seconds"],
                         "params_crc32": got["params"]})  # fmt: skip
            print(f"{loop:6} round {r}: {got['seconds']:.1f} s, "
                  f"{args.steps / got['seconds']:.3f} updates/s", flush=True)  # fmt: skip
    speed = {k: statistics.median(x["updates_per_s"] for x in rows if x["loop"] == k)
             for k in ("hand", "shared")}  # fmt: skip
    ratio = speed["shared"] / speed["hand"]
    pairs = {}  # round -> (hand s, shared s, shared end-checkpoint s)
    for x in rows:
        pairs.setdefault(x["round"], {})[x["loop"]] = x
    by_round = [(p["hand"]["seconds"] / p["shared"]["seconds"],
                 p["hand"]["seconds"] / (p["shared"]["seconds"] - p["shared"]["checkpoint_seconds"]))
                for p in pairs.values()]  # fmt: skip
    for r, (whole, updates) in enumerate(by_round):
        print(f"round {r}: shared / hand {whole:.3f}; without the end checkpoint {updates:.3f}")
    print(f"\n| loop | updates/s (median of {args.rounds}) |\n|---|---|")
    for k, v in speed.items():
        print(f"| {k} | {v:.3f} |")
    print(
        f"ratio shared / hand: {ratio:.3f} (target >= 1.0); encoder {args.encoder}, "
        f"batch {args.batch_size}, {args.steps} updates, {rows[0]['examples']} examples"
    )
    same = len({x["params_crc32"] for x in rows}) == 1
    print(f"final parameters of every run bit-identical: {same}")
    no_ckpt = statistics.median(u for _, u in by_round)
    print(f"median per-round ratio without the shared loop's end checkpoint: {no_ckpt:.3f}")
    targets = [{"name": "shared loop updates/s / hand loop updates/s", "value": ratio,
                "target": 1.0, "met": ratio >= 1.0},
               {"name": "final parameters bit-identical (hand vs shared)", "value": same,
                "target": True, "met": same},
               {"name": "same, updates only (the end checkpoint's time taken out), median of "
                "per-round ratios", "value": no_ckpt, "target": 1.0, "met": no_ckpt >= 1.0}]  # fmt: skip
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        payload = {"results": rows, "targets": targets, "median_updates_per_s": speed,
                   "config": {k: str(v) for k, v in vars(args).items()}}  # fmt: skip
        Path(args.json).write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
