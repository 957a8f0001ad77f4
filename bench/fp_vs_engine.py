"""The suggestion engine on a formula-prediction run's own test targets: the learned model and
the LightGBM-ranked engine, compared on the same cells with the same metric.

    .venv/bin/python bench/fp_vs_engine.py OUT [--setting sheet|paper] [--ranker DIR] [--json PATH]

`--setting` must be the run's own (`config.data.setting` in its `metrics.json`; sheet when the
run does not say), so that the model and the engine see the same formulas.

OUT is a finished run or an evaluation of one (`fortap finetune|evaluate formula-prediction ...
-o OUT`): its `predictions.jsonl` names each test target (workbook file, sheet, cell) with the
model's ranked candidates and the gold's prefix. Each workbook is read once
(`fortap.suggest.books.contexts`); each target is asked as a user would ask the engine
(`fortap.suggest.candidates.generate`, ranked by the shipped ranker or `--ranker`), in the run's
setting:
- *sheet*: only the target hidden; the fixed rule order (nearest fill, then AutoSum) over the
  engine's candidates is shown too;
- *paper*: no formula visible (templates and formulas induced from the values next to the
  target); the baselines are AutoSum (the rule order with no fill), the induced candidates in
  their hand order before it (`candidates.induced.by_strength`: what the values show, without
  learning) and, when the run's `metrics.json` lists it, the input-blind sketch prior.
An engine candidate counts as right when its parse at the target has the gold's prefix (sketch
and ranges, `$` ignored, numbers as one token: `metrics.formula_key`, the metric of
`predictions.jsonl`); its sketch is right when the sketches agree. Both sides are scored by the
library's one gold match (`fortap.tasks.formula_prediction.hits`: the model's hits read back
from its records, the engine's texts parsed at the target). Every system is scored on the
targets whose workbook the engine could read, pooled and averaged per workbook, and each gap has a
95 % interval from resampling test workbooks (paired).

Targets (measured, not asserted). Sheet: model formula top-1 >= engine, pooled and per workbook.
Paper (issue 21, acceptance 2, for the engine): formula top-1 >= AutoSum + 5 points and sketch
top-1 >= prior + 10 points, pooled and per workbook, each gap's interval above 0.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.metrics.bootstrap import book_tallies, bootstrap_gap, per_workbook_mean
from fortap.suggest.books import contexts, side_of
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.induced import by_strength
from fortap.suggest.cells import parse_cell
from fortap.suggest.context import Target
from fortap.suggest.features import rule_order
from fortap.suggest.ranker import Ranker
from fortap.tasks.formula_prediction.hits import (
    read_predictions,
    record_gold,
    record_hits,
    text_guess,
    text_hits,
)
from fortap.tasks.formula_prediction.metrics import sketch_key

SETTINGS = ("sheet", "paper")
PRIOR = "sketch prior"
VALUES = "values, hand order"
FIRST_SOURCES = ("induced", "echo", "common")  # the engine's first candidate, by its source
# (system, baseline, metric, least gap) of the acceptance targets per setting
TARGETS = {
    "sheet": [("model", "engine", "formula_top1", 0.0)],
    "paper": [("engine", "AutoSum", "formula_top1", 0.05), ("engine", PRIOR, "sketch_top1", 0.10)],
}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run", help="a finished formula-prediction run (or evaluation) folder")
    p.add_argument(
        "--setting",
        choices=SETTINGS,
        help="what the engine sees: the sheet's other formulas, or none (paper); default and "
        "only choice: the run's own setting",
    )
    p.add_argument("--ranker", help="ranker folder (default: the one shipped with fortap)")
    p.add_argument("--json", help="write results and targets here")
    return p.parse_args(argv)


def hits(ranked: list[str], gold, sheet: str, row: int, col: int) -> tuple:
    """(formula top-1, formula top-5, sketch top-1) of ranked formula texts against the gold
    (`hits.text_hits`)."""
    got = text_hits(gold, ranked, sheet, (row, col), k=5)
    return got["formula_top1"], got["formula_top5"], got["sketch_top1"]


def prior_of(run: Path) -> str | None:
    """The sketch prior's top sketch from the run's metrics (None when the run did not list it)."""
    path = run / "metrics.json"
    if not path.exists():
        return None
    sketches = json.loads(path.read_text()).get("systems", {}).get(PRIOR, {}).get("sketches")
    return sketches[0] if sketches else None


def score(run: Path, ranker: Ranker, setting: str = "sheet") -> tuple[list[dict], dict]:
    """One row per test target the engine could read, and a summary of what was read."""
    records = read_predictions(run)
    prior = prior_of(run) if setting == "paper" else None
    rules = "rule order" if setting == "sheet" else "AutoSum"
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
            gold = text_guess(r["formula"], r["sheet"], (row, col)) or record_gold(r)
            tick = time.perf_counter()
            cands = generate(ctx, target, setting=setting, common=ranker.common)
            ranked = [c for c, _ in ranker.rank(cands)]
            engine = [c.formula for c in ranked]
            seconds += time.perf_counter() - tick
            out = {"book": r["book"], "sheet": r["sheet"], "cell": r["cell"]}
            mine = record_hits(r, k=5)
            out["model"] = (mine["formula_top1"], mine["formula_top5"], mine["sketch_top1"])
            out["engine"] = hits(engine, gold, r["sheet"], row, col)
            ruled = rule_order(cands)
            out[rules] = hits([c.formula for c in ruled], gold, r["sheet"], row, col)
            if setting == "paper":
                shown = by_strength(cands)
                hand = shown + [c for c in ruled if c not in shown]
                out[VALUES] = hits([c.formula for c in hand], gold, r["sheet"], row, col)
            if prior is not None:
                out[PRIOR] = (0, 0, int(prior == " ".join(sketch_key(gold.sketch))))
            first = ranked[0].features if ranked else {}
            out["engine_first"] = next((s for s in FIRST_SOURCES if first.get(f"src_{s}")), "other")
            out["model_texts"], out["engine_top1"] = (
                [c["formula"] for c in r["candidates"][:1]],
                engine[:1],
            )
            rows.append(out)
    read = {"targets": len(records), "scored": len(rows), "books": len(by_book),
            "unreadable": errors, "sides": dict(sides), "setting": setting, "prior": prior,
            "engine_ms_per_target": 1000 * seconds / max(1, len(rows)),
            "seconds": time.perf_counter() - started}  # fmt: skip
    return rows, read


METRICS = ("formula_top1", "formula_top5", "sketch_top1")


def summarise(rows: list[dict], setting: str = "sheet") -> tuple[list[dict], list[dict]]:
    """Per system formula top-1 / top-5 and sketch top-1, pooled and per workbook; the gaps of
    the setting's targets, model - engine and (paper) engine - the values' hand order - AutoSum."""
    books = [r["book"] for r in rows]
    systems = [k for k in rows[0] if isinstance(rows[0][k], tuple)]
    table, tallies = [], {}
    for name in systems:
        row = {"system": name}
        for i, metric in enumerate(METRICS):
            tally = book_tallies(books, [float(r[name][i]) for r in rows])
            tallies[name, metric] = tally
            row[metric] = sum(r[name][i] for r in rows) / len(rows)
            row[f"{metric}_per_workbook"] = per_workbook_mean(tally)
        table.append(row)
    pairs = [(a, b, m) for a, b, m, _ in TARGETS[setting]]
    more = [("model", "engine", "formula_top1"), ("engine", VALUES, "formula_top1"),
            (VALUES, "AutoSum", "formula_top1")]  # fmt: skip
    pairs += [p for p in more if p not in pairs]
    gaps = []
    for a, b, metric in pairs:
        if (a, metric) not in tallies or (b, metric) not in tallies:
            continue  # a system this setting does not score
        for by_book in (False, True):
            g = bootstrap_gap(tallies[a, metric], tallies[b, metric], per_workbook=by_book)
            gaps.append({"system": a, "minus": b, "metric": metric,
                         "mode": "per_workbook" if by_book else "pooled", **g})  # fmt: skip
    return table, gaps


def by_first_source(rows: list[dict]) -> list[dict]:
    """The engine's formula and sketch top-1 (and the prior's sketch top-1) on the targets whose
    first engine candidate is induced, an echo, common (each not an earlier one), and the rest:
    where reading the values, and what other workbooks write, decide."""
    out = []
    for first in (*FIRST_SOURCES, "other"):
        part = [r for r in rows if r["engine_first"] == first]
        if part:
            row = {"engine_first": first, "targets": len(part)}
            for i, metric in enumerate(METRICS):
                row[metric] = sum(r["engine"][i] for r in part) / len(part)
            if PRIOR in part[0]:
                row["prior_sketch_top1"] = sum(r[PRIOR][2] for r in part) / len(part)
            out.append(row)
    return out


def targets_of(gaps: list[dict], setting: str) -> list[dict]:
    """The setting's targets from the measured gaps: the gap reaches its least value and, where
    that is above 0, its interval is above 0 too. A target whose baseline was not measured (no
    prior listed) is there, not met, with value None."""
    out = []
    for a, b, metric, least in TARGETS[setting]:
        for mode in ("pooled", "per_workbook"):
            name = f"{a} {metric.replace('_', ' ')} - {b} >= {100 * least:+.0f} points, "
            name += "pooled" if mode == "pooled" else "per workbook"
            if least > 0:
                name += ", interval > 0"
            key = (a, b, metric, mode)
            g = next(
                (g for g in gaps if (g["system"], g["minus"], g["metric"], g["mode"]) == key), None
            )
            met = g is not None and g["gap"] >= least and (least <= 0 or g["low"] > 0)
            value = None if g is None else g["gap"]
            out.append({"name": name, "value": value, "target": least, "met": met})
    return out


def run_setting(run: Path) -> str:
    """The setting a formula-prediction run was made in (sheet when its metrics do not say)."""
    path = run / "metrics.json"
    config = json.loads(path.read_text()).get("config", {}) if path.exists() else {}
    return config.get("data", {}).get("setting", "sheet")


def main(argv=None) -> None:
    args = parse_args(argv)
    console = Console(width=max(Console().width, 160))
    ranker = Ranker.load(Path(args.ranker) if args.ranker else None)
    setting = run_setting(Path(args.run))
    if args.setting not in (None, setting):
        raise SystemExit(f"{args.run}: a {setting}-setting run; --setting {args.setting} would "
                         "show the engine other formulas than the model saw")  # fmt: skip
    args.setting = setting
    rows, read = score(Path(args.run), ranker, args.setting)
    if not rows:
        raise SystemExit(
            f"{args.run}: no test workbook could be read (its paths are relative to the folder the run was made in)"
        )
    table, gaps = summarise(rows, args.setting)
    view = RichTable(title=f"{args.setting} setting: {read['scored']} of {read['targets']} test "
                     f"targets, {read['books'] - len(read['unreadable'])} workbooks (formula_key: "
                     "sketch and ranges, $ ignored; pooled / per workbook)", title_justify="left")  # fmt: skip
    for i, head in enumerate(("system", "formula top-1", "formula top-5", "sketch top-1")):
        view.add_column(head, justify="left" if i == 0 else "right")
    for t in table:
        view.add_row(t["system"], *(f"{100 * t[m]:.1f} / {100 * t[m + '_per_workbook']:.1f}"
                                    for m in METRICS))  # fmt: skip
    console.print(view)
    for g in gaps:
        console.print(f"{g['system']} - {g['minus']}, {g['metric'].replace('_', ' ')} {g['mode']}: "
                      f"{100 * g['gap']:+.1f} points, 95 % interval [{100 * g['low']:+.1f}, "
                      f"{100 * g['high']:+.1f}]")  # fmt: skip
    console.print(f"workbook sides (suggestion split): {read['sides']}; unreadable: "
                  f"{len(read['unreadable'])}; engine {read['engine_ms_per_target']:.1f} ms per "
                  f"target; {read['seconds']:.0f} s in all")  # fmt: skip
    split = by_first_source(rows)
    for b in split:
        prior = b.get("prior_sketch_top1")
        console.print(f"engine's first candidate {b['engine_first']}: {b['targets']} targets, "
                      f"formula top-1 {100 * b['formula_top1']:.1f}, sketch top-1 "
                      f"{100 * b['sketch_top1']:.1f}"
                      + ("" if prior is None else f" (prior's sketch top-1 {100 * prior:.1f})"))  # fmt: skip
    if args.setting == "paper" and read["prior"] is None:
        console.print("no sketch prior: the run's metrics.json does not list its sketches")
    targets = targets_of(gaps, args.setting)
    for t in targets:
        shown = "not measured" if t["value"] is None else f"{100 * t['value']:+.1f}"
        console.print(f"{'met' if t['met'] else 'not met'}: {t['name']}: {shown}")
    if args.json:
        results = table + [{"gap": g} for g in gaps] + [{"by_first": b} for b in split]
        results.append({"read": read})
        Path(args.json).write_text(json.dumps({"results": results, "targets": targets}, indent=1))


if __name__ == "__main__":
    main()
