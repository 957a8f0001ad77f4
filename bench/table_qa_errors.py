"""Where table-QA answers fail on HiTab dev: the causes of the wrong answers, by question kind.

    .venv/bin/python bench/table_qa_errors.py [--model OUT/model] [--json PATH]
        [--data ../shared/data/hitab] [--split dev]

Every question of the file is built as fine-tuning builds it (the model's own input settings,
else the defaults) and tallied by kind (`fortap.tasks.table_qa.kinds`: cell selection by the
number of headers named, arithmetic, superlative, comparative). Without a model, the shares no
system can get right are measured: labels out of the operation set, gold cells cut from the
input, and targets that do not re-execute to the gold. With `--model` (a `fortap finetune
table-qa` model folder) each wrong answer also gets its cause
(`fortap.tasks.table_qa.breakdown`): matching, operation wrong, cells wrong, both wrong, or
one of the two lost causes. Writes `{"results": [one row per kind], "targets": []}`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fortap.encoding.serialize import SerializeConfig
from fortap.tasks.table_qa.breakdown import CAUSES, LOST, breakdown
from fortap.tasks.table_qa.checkpoint import load_qa_model
from fortap.tasks.table_qa.predict import predict
from fortap.tasks.table_qa.questions import QuestionBuilder
from fortap.tasks.table_qa.samples import HitabSet
from fortap.text.tokenizer import Tokenizer
from helpers.paths import DATA


def show(rows: list[dict], with_model: bool) -> None:
    lost = [f"{cause} share" for cause in (*LOST, "target unverified")]
    heads = ["kind", "n", "share", "out of set", "gold cut", "unverified"]
    if with_model:
        heads += ["accuracy", "wrong", *CAUSES[len(LOST) :]]
    print(" | ".join(heads))
    for r in rows:
        cells = [r["kind"], str(r["n"]), f"{r['share']:.3f}", *(f"{r[k]:.3f}" for k in lost)]
        if with_model:
            cells += [f"{r['accuracy']:.3f}", str(r["wrong"])]
            cells += [f"{r['causes'][c]['share of wrong']:.3f}" for c in CAUSES[len(LOST) :]]
        print(" | ".join(cells))
    if with_model:
        print("(cause columns: share of the wrong answers; out of set / gold cut / unverified: "
              "share of the questions)")  # fmt: skip


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--data", type=Path, default=DATA / "hitab")
    p.add_argument("--model", type=Path, help="a fine-tuned table-QA model folder")
    p.add_argument("--split", default="dev")
    p.add_argument("--json", type=Path, help="write results and targets here")
    args = p.parse_args(argv)
    started = time.perf_counter()
    hitab = HitabSet(args.data)
    model, inputs = load_qa_model(args.model) if args.model else (None, SerializeConfig())
    builder = QuestionBuilder(hitab, Tokenizer(), inputs)
    items = builder.build(hitab.samples(args.split), args.split).items
    found = None
    if model is not None:
        found = predict(model, [i.example for i in items], [i.paths for i in items])
    rows = [{"split": args.split, "model": str(args.model or ""), "max_seq_len": inputs.max_seq_len,
             **row} for row in breakdown(items, found)]  # fmt: skip
    show(rows, found is not None)
    print(f"({len(items)} {args.split} questions, max_seq_len {inputs.max_seq_len}, "
          f"{time.perf_counter() - started:.0f} s)")  # fmt: skip
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"results": rows, "targets": []}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
