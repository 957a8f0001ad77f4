"""`fortap recover` as the paper setting on whole sheets: formulas stripped, then put back.

    .venv/bin/python bench/recover.py [--side test|dev] [--data DIR] [--max-numbers N]
        [--min-score S] [--json PATH]

The workbooks of one side of the formula-prediction split by workbook (`suggest.books.side_of`)
in the visible folders with formulas (euses_excelint, tasi, checkcell_benchmarks). Each sheet is
turned into values only (`Sheet.values_only`: every formula replaced by its cached value), and
`recover_sheet` puts formulas back. Against the original sheet:

- recall: the share of the original formula cells holding a nonzero number that are given a
  formula (also over every formula cell);
- formula precision: the share of those recovered formulas whose paper key
  (`tasks.formula_prediction.metrics.formula_key`: sketch and references, `$` ignored,
  constants by type) equals the original's, and the exact-text share; beside it, the key with
  the original's `=+` prefix dropped (a values-only sheet cannot show that habit);
- false formulas: the share of all recovered cells that held a typed number.

Each rate pooled over cells and as the mean over workbooks. Baseline in the same run: Excel's AutoSum alone (a typed number equal to the sum of the run of
numbers just above or left of it becomes that `SUM`), through the same scoring. Per-workbook
rows too; a workbook that cannot be read is reported and skipped.

Targets (issue 53, test side): recall >= 0.60, formula precision >= 0.80, false formulas <= 0.02.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.console import progress
from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.recover import RecoverConfig, recover_sheet
from fortap.suggest.books import contexts, workbooks_on
from fortap.synthesis import SynthConfig
from fortap.tasks.formula_prediction.metrics import Guess, formula_key

sys.path.insert(0, str(Path(__file__).parent))
from helpers.paths import DATA  # noqa: E402

FOLDERS = ("euses_excelint", "tasi", "checkcell_benchmarks")
TARGETS = {"recall": (0.60, ">="), "precision": (0.80, ">="), "false": (0.02, "<=")}


def key_of(text: str, sheet: str, at: tuple[int, int]):
    try:
        f = parse_formula(text, sheet, at)
    except FortapError:
        return None
    return formula_key(Guess(f.sketch, f.ranges))


def unplussed(text: str) -> str:
    """`=+B5-C5` as `=B5-C5`: the Lotus habit, which a values-only sheet cannot show."""
    return "=" + text[2:] if text.startswith("=+") else text


def score_sheet(sheet, cfg: RecoverConfig, tally: Counter) -> None:
    """Strip `sheet`'s formulas, recover them, and count against the original."""
    found = recover_sheet(sheet.values_only(), cfg)
    numeric = {rc for rc, cell in sheet.cells.items() if cell.formula is not None
               and cell.kind == "number" and cell.value not in (0, 0.0)}  # fmt: skip
    tally["formulas"] += sum(1 for _ in sheet.formula_cells())
    tally["numeric"] += len(numeric)
    for f in found:
        at = (f.row, f.col)
        cell = sheet.cell(*at)
        tally["recovered"] += 1
        if cell.formula is None:
            tally["false"] += 1
            continue
        tally["on_formulas"] += 1
        tally["on_numeric"] += at in numeric
        gold = key_of(cell.formula, sheet.name, at)
        mine = key_of(f.formula, sheet.name, at)
        tally["key"] += gold is not None and gold == mine
        plain = key_of(unplussed(cell.formula), sheet.name, at)
        tally["key_plain"] += plain is not None and plain == mine
        tally["exact"] += f.formula.replace("$", "").upper() == cell.formula.replace(
            "$", "").replace(" ", "").upper()


def rates(t: Counter) -> dict:
    share = lambda a, b: t[a] / t[b] if t[b] else 0.0  # noqa: E731
    return {
        "recall": share("on_numeric", "numeric"),
        "recall_all": share("on_formulas", "formulas"),
        "precision": share("key", "on_formulas"),
        "precision_plain": share("key_plain", "on_formulas"),
        "exact": share("exact", "on_formulas"),
        "false": share("false", "recovered"),
        "recovered": t["recovered"],
        "formulas": t["formulas"],
        "numeric": t["numeric"],
    }


def per_book(books: list[dict], system: str) -> dict:
    """The mean over workbooks of each rate, over the workbooks where it is defined (one with
    no numeric formula cell has no recall; one with nothing recovered, no precision)."""
    def mean(name: str, need: str) -> float:
        vals = [b[system][name] for b in books if b[system][need]]
        return sum(vals) / len(vals) if vals else 0.0

    return {"recall_per_book": mean("recall", "numeric"),
            "precision_per_book": mean("precision", "recovered"),
            "false_per_book": mean("false", "recovered")}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--side", default="test", choices=("test", "dev", "train"))
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--max-numbers", type=int, default=20_000, help="numbers searched per sheet")
    ap.add_argument("--min-score", type=float, default=RecoverConfig().min_score)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    files = workbooks_on([args.data / f for f in FOLDERS], args.side, "bench/recover.py", "--side")
    systems = {
        "recover": RecoverConfig(min_score=args.min_score, max_numbers=args.max_numbers),
        "AutoSum only": RecoverConfig(min_score=args.min_score, max_numbers=args.max_numbers,
                                      synth=replace(SynthConfig(), keep=0)),
    }  # fmt: skip
    tallies = {name: Counter() for name in systems}
    books, errors, seconds = [], [], Counter()
    with progress("recover", len(files)) as update:
        for i, (path, ctx) in enumerate(contexts(files, errors)):
            update(i, path.name)
            row = {"book": path.name}
            for name, cfg in systems.items():
                mine = Counter()
                start = time.perf_counter()
                for sheet in ctx.book.sheets:
                    score_sheet(sheet, cfg, mine)
                seconds[name] += time.perf_counter() - start
                tallies[name].update(mine)
                row[name] = rates(mine)
            books.append(row)
    results = [{"system": n, **rates(t), **per_book(books, n), "seconds": seconds[n]}
               for n, t in tallies.items()]  # fmt: skip
    table = RichTable(title=f"recover on the {args.side} side, formulas stripped "
                            f"({len(books)} workbooks, min score {args.min_score})")  # fmt: skip
    for col in ("system", "recall", "recall (all)", "precision", "without =+", "exact", "false",
                "recovered", "seconds"):  # fmt: skip
        table.add_column(col)
    for r in results:
        table.add_row(r["system"], f"{r['recall']:.3f} / {r['recall_per_book']:.3f}",
                      f"{r['recall_all']:.3f}",
                      f"{r['precision']:.3f} / {r['precision_per_book']:.3f}",
                      f"{r['precision_plain']:.3f}", f"{r['exact']:.3f}",
                      f"{r['false']:.3f} / {r['false_per_book']:.3f}", str(r["recovered"]),
                      f"{r['seconds']:.1f}")  # fmt: skip
    console = Console(width=140)
    console.print(table)
    console.print("rates pooled / mean over workbooks; recall over numeric formula cells")
    main_r, base = results[0], results[1]
    console.print(f"ratio recover / AutoSum only: recall {main_r['recall'] / max(base['recall'], 1e-9):.2f}")
    if errors:
        console.print(f"{len(errors)} unreadable: " + "; ".join(e["path"] for e in errors))
    targets = []
    for name, (target, way) in TARGETS.items():
        value = main_r[name]
        met = value >= target if way == ">=" else value <= target
        targets.append({"name": f"{args.side} {name}", "value": value, "target": target, "met": met})
        console.print(f"target {name} {way} {target}: {value:.3f} {'met' if met else 'NOT met'}")
    if args.json is not None:
        out = {"results": results + [{"book": b} for b in books], "targets": targets,
               "unreadable": errors, "side": args.side, "min_score": args.min_score}  # fmt: skip
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
