"""The suggestion engine on a formula-prediction run's own test targets: the learned copy head
and the LightGBM-ranked engine, compared on the same cells with the same metric.

    .venv/bin/python bench/fp_vs_engine.py OUT [--ranker DIR] [--json PATH]

OUT is a finished sheet-setting run or an evaluation of one (`fortap finetune|evaluate
formula-prediction ... -o OUT`): its `predictions.jsonl` names each test target (workbook file,
sheet, cell) with the model's ranked candidates and the gold's prefix. Each workbook is read
once (`fortap.suggest.books.contexts`); each target is asked as a user would ask the engine in
the sheet setting (only the target hidden; `fortap.suggest.candidates.generate`, ranked by the
shipped ranker or `--ranker`). An engine candidate counts as right when its parse at the target
has the gold's prefix (sketch and ranges, `$` ignored: `metrics.formula_key`, the metric of
`predictions.jsonl`). Both systems are scored on the targets whose workbook the engine could
read, pooled and averaged per workbook, and the gap model − engine has a 95 % interval from
resampling test workbooks (paired). The fixed rule order (fill, then AutoSum) over the engine's
candidates is shown too.

Target (measured, not asserted): model formula top-1 >= engine top-1, pooled and per workbook.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.errors import FortapError
from fortap.evaluation.by_workbook import book_tallies, bootstrap_gap, per_book_mean
from fortap.evaluation.metrics import Guess, formula_key
from fortap.formula import parse_formula
from fortap.suggest.books import contexts, side_of
from fortap.suggest.candidates import generate
from fortap.suggest.cells import parse_cell
from fortap.suggest.context import Target
from fortap.suggest.features import rule_order
from fortap.suggest.ranker import Ranker

SYSTEMS = ("model", "engine", "rule order")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run", help="a finished sheet-setting run (or evaluation) folder")
    p.add_argument("--ranker", help="ranker folder (default: the one shipped with fortap)")
    p.add_argument("--json", help="write results and targets here")
    return p.parse_args(argv)


def prefix_at(text: str, sheet: str, row: int, col: int) -> str | None:
    """The `formula_key` prefix of `text` entered at (sheet, row, col); None if it does not parse."""
    try:
        parsed = parse_formula(text, sheet, (row, col))
    except FortapError:
        return None
    return " ".join(formula_key(Guess(parsed.sketch, parsed.ranges)))


def hits(ranked_texts: list[str], gold: str, sheet: str, row: int, col: int) -> tuple[int, int]:
    """(top-1, top-5) of a ranked list of formula texts against the gold prefix."""
    keys = [prefix_at(t, sheet, row, col) for t in ranked_texts[:5]]
    return int(bool(keys) and keys[0] == gold), int(gold in keys)


def score(run: Path, ranker: Ranker) -> tuple[list[dict], dict]:
    """One row per test target the engine could read, and a summary of what was read."""
    records = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    by_book: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_book[r["book"]].append(r)
    errors: list[dict] = []
    rows, sides, seconds = [], defaultdict(int), 0.0
    started = time.perf_counter()
    for path, ctx in contexts([Path(b) for b in by_book], errors):
        sides[side_of(path)] += 1
        for r in by_book[str(path)]:
            at = parse_cell(r["cell"], r["book"])
            row, col = at.row, at.col
            target = Target(r["sheet"], row, col)
            tick = time.perf_counter()
            cands = generate(ctx, target)
            engine = [c.formula for c, _ in ranker.rank(cands)]
            seconds += time.perf_counter() - tick
            rules = [c.formula for c in rule_order(cands)]
            model = [c["formula"] for c in r["candidates"]]
            gold = r["gold"]
            out = {"book": r["book"], "sheet": r["sheet"], "cell": r["cell"]}
            m1 = int(r["error"] == "correct")
            m5 = int(any(c["prefix"] == gold for c in r["candidates"][:5]))
            out["model"] = (m1, m5)
            out["engine"] = hits(engine, gold, r["sheet"], row, col)
            out["rule order"] = hits(rules, gold, r["sheet"], row, col)
            out["model_texts"], out["engine_top1"] = model[:1], engine[:1]
            rows.append(out)
    read = {"targets": len(records), "scored": len(rows), "books": len(by_book),
            "unreadable": errors, "sides": dict(sides),
            "engine_ms_per_target": 1000 * seconds / max(1, len(rows)),
            "seconds": time.perf_counter() - started}  # fmt: skip
    return rows, read


def summarise(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """Per system top-1 / top-5 pooled and per workbook; gaps model - each other system."""
    books = [r["book"] for r in rows]
    table, tallies = [], {}
    for name in SYSTEMS:
        one = book_tallies(books, [float(r[name][0]) for r in rows])
        five = book_tallies(books, [float(r[name][1]) for r in rows])
        tallies[name] = one
        table.append({"system": name, "top1": sum(r[name][0] for r in rows) / max(1, len(rows)),
                      "top1_per_book": per_book_mean(one),
                      "top5": sum(r[name][1] for r in rows) / max(1, len(rows)),
                      "top5_per_book": per_book_mean(five)})  # fmt: skip
    gaps = []
    for other in SYSTEMS[1:]:
        for per_book in (False, True):
            g = bootstrap_gap(tallies["model"], tallies[other], per_book=per_book)
            gaps.append({"minus": other, "mode": "per_book" if per_book else "pooled", **g})
    return table, gaps


def main(argv=None) -> None:
    args = parse_args(argv)
    console = Console(width=max(Console().width, 160))
    ranker = Ranker.load(Path(args.ranker) if args.ranker else None)
    rows, read = score(Path(args.run), ranker)
    if not rows:
        raise SystemExit(
            f"{args.run}: no test workbook could be read (its paths are relative to the folder the run was made in)"
        )
    table, gaps = summarise(rows)
    view = RichTable(title=f"{read['scored']} of {read['targets']} test targets, "
                     f"{read['books'] - len(read['unreadable'])} workbooks (formula_key: sketch "
                     "and ranges, $ ignored)", title_justify="left")  # fmt: skip
    for i, head in enumerate(("system", "top-1", "top-1/book", "top-5", "top-5/book")):
        view.add_column(head, justify="left" if i == 0 else "right")
    for t in table:
        view.add_row(t["system"], *(f"{100 * t[k]:.1f}" for k in
                                    ("top1", "top1_per_book", "top5", "top5_per_book")))  # fmt: skip
    console.print(view)
    for g in gaps:
        console.print(f"model - {g['minus']}, top-1 {g['mode']}: {100 * g['gap']:+.1f} points, 95 % "
                      f"interval [{100 * g['low']:+.1f}, {100 * g['high']:+.1f}]")  # fmt: skip
    console.print(f"workbook sides (suggestion split): {read['sides']}; unreadable: "
                  f"{len(read['unreadable'])}; engine {read['engine_ms_per_target']:.1f} ms per "
                  f"target; {read['seconds']:.0f} s in all")  # fmt: skip
    model = next(t for t in table if t["system"] == "model")
    engine = next(t for t in table if t["system"] == "engine")
    targets = [{"name": f"model formula top-1 >= engine, {mode}", "value": model[key],
                "target": engine[key], "met": model[key] >= engine[key]}
               for mode, key in (("pooled", "top1"), ("per workbook", "top1_per_book"))]  # fmt: skip
    for t in targets:
        console.print(f"{'met' if t['met'] else 'not met'}: {t['name']}: "
                      f"{t['value']:.3f} vs {t['target']:.3f}")  # fmt: skip
    if args.json:
        results = table + [{"gap": g} for g in gaps] + [{"read": read}]
        Path(args.json).write_text(json.dumps({"results": results, "targets": targets}, indent=1))


if __name__ == "__main__":
    main()
