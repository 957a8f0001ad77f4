"""The suggester's misses by class: which targets' gold formula no candidate source reaches.

    .venv/bin/python bench/suggest_misses.py RECORDS [--setting new-formula] [--sample 50]
        [--seed 0] [--ranker DIR] [--json PATH]

Reads the `records.jsonl` of `fortap.suggest.evaluate` (bench/suggest.py writes one in its
`--out` folder), samples `--sample` targets whose gold formula was not among the candidates
(`rank` null), generates their candidates again with the current sources and sorts each into
the first class that holds it:

- `reached`: the current sources now reach it (the records came from older code);
- `rows-only` / `cols-only`: a visible formula of the sheet, moved by the rows (columns) only,
  as if its columns (rows) were absolute;
- `other-sheet`: its R1C1 text is on another sheet of the workbook;
- `unreached`: none of these.

It prints the class counts (with the fraction of the sample) and, for every target sampled,
the gold formula and the top three ranked candidates, so a reader sees what a new source
would have to propose.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
from pathlib import Path

import numpy as np

from fortap.sheet.model import a1
from fortap.suggest.books import contexts
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.anchor import reanchor
from fortap.suggest.context import BookContext, Target
from fortap.suggest.ranker import Ranker
from fortap.suggest.train import gold_text, hidden_for

NEAREST = 300  # formula cells tried for the rows-only / cols-only moves


def key(text: str) -> str:
    return text.upper().replace(" ", "")


def classify(ctx: BookContext, target: Target, setting: str, ranker: Ranker) -> tuple[str, list]:
    """(class, top three ranked candidate texts) of one missed target."""
    gold = gold_text(ctx, target)
    hidden = hidden_for(ctx, target, setting)
    ranked = [
        c.formula
        for c, _ in ranker.rank(generate(ctx, target, hidden, setting, common=ranker.common))
    ]
    if gold in map(key, ranked):
        return "reached", ranked[:3]
    sc = ctx.sheets[target.sheet]
    dist = np.abs(sc.rows - target.row) + np.abs(sc.cols - target.col)  # (N,)
    for i in np.argsort(dist, kind="stable")[:NEAREST]:
        (r, c), f = sc.cells[i], sc.formulas[i]
        if (target.sheet, r, c) in hidden:
            continue
        for name, dst in (("rows-only", (target.row, c)), ("cols-only", (r, target.col))):
            moved = reanchor(f, dst)
            if moved is not None and key(moved.text) == gold:
                return name, ranked[:3]
    own = ctx.formula_at(target.sheet, target.row, target.col)
    if any(own.r1c1 in s.members for n, s in ctx.sheets.items() if n != target.sheet):
        return "other-sheet", ranked[:3]
    return "unreached", ranked[:3]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("records", type=Path)
    ap.add_argument("--setting", default="new-formula")
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ranker", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    with open(args.records) as fh:
        recs = [json.loads(line) for line in fh]
    missed = [r for r in recs if r["setting"] == args.setting and r["rank"] is None]
    sample = random.Random(args.seed).sample(missed, min(args.sample, len(missed)))
    by_book = collections.defaultdict(list)
    for r in sample:
        by_book[r["book"]].append(r)
    ranker = Ranker.load(args.ranker)
    rows = []
    for path, ctx in contexts([Path(b) for b in by_book]):
        for r in by_book[str(path)]:
            target = Target(r["sheet"], r["row"], r["col"])
            kind, top = classify(ctx, target, args.setting, ranker)
            gold = ctx.formula_at(target.sheet, target.row, target.col).text
            cell = f"{path.name}!{target.sheet}!{a1(target.row, target.col)}"
            rows.append({"cell": cell, "class": kind, "gold": gold, "top": top})
            print(f"{kind:12} {cell[-60:]:60} gold {gold[:50]:50} top {top}")
    counts = collections.Counter(row["class"] for row in rows)
    print(f"\n{len(missed)} misses in {args.setting}; {len(rows)} sampled:")
    for kind, n in counts.most_common():
        print(f"  {kind:12} {n:5}  {n / max(len(rows), 1):.3f}")
    if args.json:
        result = [
            {"class": k, "n": n, "fraction": n / max(len(rows), 1)} for k, n in counts.items()
        ]
        args.json.write_text(json.dumps({"results": result, "targets": [], "rows": rows}) + "\n")


if __name__ == "__main__":
    main()
