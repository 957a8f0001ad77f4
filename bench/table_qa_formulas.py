"""Do the answer formulas `fortap ask` prints compute the answers in a sheet? (issue 44, acceptance 2)

    .venv/bin/python bench/table_qa_formulas.py [--model models/table-qa] [--split dev]
        [--limit N] [--data ../shared/data/hitab] [--json PATH]

Each question of the split is answered as `fortap ask` answers it (`tasks.table_qa.ask.ask`, by
the shipped model unless `--model` names another folder). Its table is written as a sheet by
fortap's table-to-workbook writer (`table.to_workbook`: the table's own grid at A1, as the
formula's references read it), saved as .xlsx and loaded into formualizer, the engine previews
use; the printed formula is put into a free cell below the table and recomputed, a spilled list
read back in full. The recomputed value is compared with HiTab's matching rules
(`tasks.table_qa.matching.answers_match`) against the gold answer and, as the baseline measured
in the same run, against the executed answer (`Answer.run.answer`, what `fortap ask` prints as
the answer).

Target: of the questions the model answers correctly, at least 99 % have a formula whose
recomputed value also matches the gold; the rest are listed (id, question, formula, recomputed,
gold). Writes `{"results": [one row per operation, then all], "targets": [...],
"disagreements": [...]}`.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import formualizer as fz

from fortap.errors import FortapError
from fortap.suggest.calc_book import ERROR_TEXT, reraise_interrupt
from fortap.table.model import Table
from fortap.table.to_workbook import table_workbook
from fortap.tasks.table_qa.ask import SHIPPED, ask
from fortap.tasks.table_qa.matching import answers_match
from fortap.tasks.table_qa.samples import HitabSet
from helpers.paths import DATA

TARGET = 0.99
SHEET = "table"
SPILL_LIMIT = 200  # rows or columns a spilled answer is read over


@dataclass
class Grid:
    """One table's sheet in the engine, and the free cell (1-based) formulas go into."""

    engine: fz.Workbook
    row: int
    col: int


def grid_of(table: Table) -> Grid:
    """`table` written by `table_workbook`, round-tripped through .xlsx bytes into formualizer;
    the free cell is column A two rows below the table (a list spills down or right into
    blank cells)."""
    buffer = io.BytesIO()
    table_workbook(table, SHEET).save(buffer)
    return Grid(fz.load_workbook_bytes(buffer.getvalue()), table.region.bottom + 4, 1)


def recompute(grid: Grid, formula: str) -> list:
    """The values `formula` gives in the grid's free cell: one value, or its spilled block row
    by row; an Excel error as its text (`#DIV/0!`)."""
    engine, row, col = grid.engine, grid.row, grid.col
    try:
        engine.set_formula(SHEET, row, col, formula)
        first = engine.evaluate_cell(SHEET, row, col)
    except BaseException as err:  # a formula the engine refuses (a Rust panic included)
        reraise_interrupt(err)
        return ["#ERROR!"]
    down = _run_length(engine, row, col, (1, 0))
    right = _run_length(engine, row, col, (0, 1))
    if down == right == 1:
        return [_plain(first)]
    values = [
        engine.get_value(SHEET, row + dr, col + dc) for dr in range(down) for dc in range(right)
    ]
    return [_plain(v) for v in values]


def _run_length(engine: fz.Workbook, row: int, col: int, step: tuple[int, int]) -> int:
    """How many cells from the anchor on hold a value along `step` (a spill's extent)."""
    for k in range(1, SPILL_LIMIT):
        if engine.get_value(SHEET, row + k * step[0], col + k * step[1]) is None:
            return k
    return SPILL_LIMIT


def _plain(value):
    if isinstance(value, dict) and value.get("type") == "Error":
        kind = str(value.get("kind"))
        return ERROR_TEXT.get(kind, f"#{kind.upper()}!")
    return value


def check(grid: Grid, formula: str, executed, gold) -> dict:
    """One answered question: its formula recomputed, and whether that matches the gold and
    the executed answer; whether the executed answer itself was right (`correct`)."""
    recomputed = recompute(grid, formula)
    return {
        "recomputed": recomputed,
        "correct": answers_match(list(executed), list(gold)),
        "formula_gold": answers_match(recomputed, list(gold)),
        "formula_executed": answers_match(recomputed, list(executed)),
    }


def run(hitab: HitabSet, split: str, model: Path, limit: int | None) -> list[dict]:
    """Every question of `split` (the first `limit`), answered, its formula checked."""
    grids: dict[str, Grid] = {}
    out = []
    for sample in hitab.samples(split)[:limit]:
        table = hitab.table(sample.table_id)
        record = {"id": sample.id, "question": sample.question, "gold": list(sample.answer)}
        try:
            found = ask(table, sample.question, model)
        except FortapError:  # the cells it leads to are empty: no answer, no formula
            found = None
        if found is None or found.run is None or not found.formula:
            out.append({**record, "op": found.op if found else "", "answered": False})
            continue
        if sample.table_id not in grids:
            grids[sample.table_id] = grid_of(table)
        verdict = check(grids[sample.table_id], found.formula, found.run.answer, sample.answer)
        out.append({**record, "op": found.op, "answered": True, "formula": found.formula,
                    "executed": list(found.run.answer), **verdict})  # fmt: skip
    return out


def tally(records: list[dict]) -> list[dict]:
    """Per operation the model chose, then all: questions, answered, correct, and how many
    formulas match the gold among the correct answers (the target) and match the executed
    answer among all answered (the baseline)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        groups[r["op"] or "(no answer)"].append(r)
    rows = []
    for op, group in [*sorted(groups.items()), ("all", records)]:
        answered = [r for r in group if r["answered"]]
        correct = [r for r in answered if r["correct"]]
        agree = sum(r["formula_gold"] for r in correct)
        same = sum(r["formula_executed"] for r in answered)
        rows.append({"op": op, "questions": len(group), "answered": len(answered),
                     "correct": len(correct), "formula_matches_gold": agree,
                     "share_of_correct": agree / len(correct) if correct else None,
                     "formula_matches_executed": same,
                     "share_of_answered": same / len(answered) if answered else None})  # fmt: skip
    return rows


def show(rows: list[dict], disagreements: list[dict]) -> None:
    heads = ["op", "questions", "answered", "correct", "formula = gold", "share",
             "formula = executed (baseline)", "share"]  # fmt: skip
    print(" | ".join(heads))
    for r in rows:
        print(" | ".join([r["op"], str(r["questions"]), str(r["answered"]), str(r["correct"]),
                          str(r["formula_matches_gold"]), _share(r["share_of_correct"]),
                          str(r["formula_matches_executed"]), _share(r["share_of_answered"])]))  # fmt: skip
    print(f"\n{len(disagreements)} correct answers whose formula does not recompute to the gold:")
    for r in disagreements:
        print(f"  {r['id']}: {r['question']!r}\n    {r['formula']} -> {r['recomputed']} "
              f"(executed {r['executed']}, gold {r['gold']})")  # fmt: skip


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--model", type=Path, default=SHIPPED, help="a table-QA model folder")
    p.add_argument("--data", type=Path, default=DATA / "hitab")
    p.add_argument("--split", default="dev")
    p.add_argument("--limit", type=int, help="only the first N questions")
    p.add_argument("--json", type=Path, help="write results and targets here")
    args = p.parse_args(argv)
    started = time.perf_counter()
    records = run(HitabSet(args.data), args.split, args.model, args.limit)
    rows = tally(records)
    disagreements = [{k: r[k] for k in ("id", "question", "op", "formula", "recomputed",
                                        "executed", "gold")}
                     for r in records if r["answered"] and r["correct"] and not r["formula_gold"]]  # fmt: skip
    show(rows, disagreements)
    whole = rows[-1]
    share = whole["share_of_correct"] or 0.0
    met = share >= TARGET
    print(f"\nformula recomputed = gold on {whole['formula_matches_gold']}/{whole['correct']} "
          f"correct answers ({share:.4f}; target {TARGET}: {'met' if met else 'NOT met'}); "
          f"baseline, formula = executed answer on {whole['formula_matches_executed']}/"
          f"{whole['answered']} answered; {len(records)} {args.split} questions, model "
          f"{args.model}, {time.perf_counter() - started:.0f} s")  # fmt: skip
    if args.json:
        target = {"name": "formula recomputed in the sheet matches the gold, share of correct "
                  "answers", "value": share, "target": TARGET, "met": met}  # fmt: skip
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"results": rows, "targets": [target], "disagreements": disagreements}
        args.json.write_text(json.dumps(payload, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
