"""Formula path speed: parse + filter + prefix + sketch against a bare formualizer parse.

    .venv/bin/python bench/formula.py [--rounds N] [--json PATH] [--file PATH]

All rows run over the same list (default: the 89,295 EUSES formulas of
../shared/data/xlparser-formulas, failures included) in one process, one core, rounds
interleaved so background load hits every row alike; each row reports its best round.
* `bare parse` (baseline): `formualizer.parse(text)` and nothing else;
* `whole path`: `parse_formula(text)` — our AST, filters (verdict), prefix tokens, sketch and
  ranges — with shape reuse (`fortap.formula.shape`), starting each round from an empty shape
  cache, so every shape is parsed once per round;
* `whole path, no reuse`: the same with `reuse_shapes=False` (every formula parsed and walked);
* `whole path + cell`: shape reuse with a formula cell given, which adds the R1C1 text.
A second section (skip with `--no-books`) repeats `bare parse`, `whole path` and `no reuse` over
the 26,716 formula cells of the EUSES workbooks (../shared/data/euses_excelint/subjects_xlsx,
read with `read_workbook`), in sheet order, each with its host sheet, cell and array flag — the
way corpus building calls it, where dragged copies make most formulas a known shape.
Times are this process's CPU time (`time.process_time`): the machine is shared, and wall time
would charge other jobs' load to whichever row was running.
Target: whole path >= 40 % of bare-parse speed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import formualizer

import fortap.formula.formula as formula_module
from fortap.errors import FormulaError
from fortap.formula import parse_formula
from fortap.formula.report import read_formula_lines

REPO = Path(__file__).resolve().parents[1]
EUSES = REPO.parent / "shared" / "data" / "xlparser-formulas" / "euses" / "formulas.txt"


def bare(lines: list[str]) -> int:
    ok = 0
    for text in lines:
        try:
            formualizer.parse(text)
            ok += 1
        except (formualizer.ParserError, formualizer.TokenizerError):
            pass
    return ok


def whole(lines: list[str], reuse: bool = True, with_cell: bool = False) -> int:
    formula_module._SHAPES.clear()
    cell = (10, 5) if with_cell else None
    ok = 0
    for text in lines:
        try:
            f = parse_formula(text, None, cell, reuse_shapes=reuse)
        except FormulaError:
            continue
        # every output of the path exists (they are computed eagerly)
        ok += bool(f.verdict) and bool(f.sketch) and f.tokens is not None and f.ranges is not None
    return ok


def book_items() -> list[tuple[str, str, tuple[int, int], bool]]:
    from fortap.sheet import read_workbooks

    paths = sorted((EUSES.parents[2] / "euses_excelint" / "subjects_xlsx").glob("*.xlsx"))
    items = []
    for _, book in read_workbooks(paths):
        for sheet in getattr(book, "sheets", ()):
            for row, col, cell in sheet.formula_cells():
                items.append((cell.formula, sheet.name, (row, col), cell.array_formula))
    return items


def whole_cells(items, reuse: bool = True) -> int:
    formula_module._SHAPES.clear()
    ok = 0
    for text, sheet, cell, array in items:
        try:
            f = parse_formula(text, sheet, cell, array, reuse_shapes=reuse)
        except FormulaError:
            continue
        ok += bool(f.verdict) and bool(f.sketch) and f.r1c1 is not None
    return ok


def measure(rows: dict, rounds: int, n: int, baseline: str, section: str) -> list[dict]:
    """Best CPU time of each row over interleaved rounds, with its ratio to `baseline`."""
    best = {name: float("inf") for name in rows}
    done: dict[str, int] = {}
    for _ in range(rounds):
        for name, fn in rows.items():
            t0 = time.process_time()
            done[name] = fn()
            best[name] = min(best[name], time.process_time() - t0)
    base = n / best[baseline]
    return [
        {
            "section": section,
            "row": name,
            "formulas": n,
            "parsed": done[name],
            "seconds": best[name],
            "formulas_per_s": n / best[name],
            "ratio_to_bare": n / best[name] / base,
        }
        for name in rows
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--file", type=Path, default=EUSES)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--no-books", dest="books", action="store_false")
    args = ap.parse_args()
    lines = read_formula_lines(args.file)
    rows = {
        "bare parse (formualizer)": lambda: bare(lines),
        "whole path": lambda: whole(lines),
        "whole path, no reuse": lambda: whole(lines, reuse=False),
        "whole path + cell (R1C1)": lambda: whole(lines, with_cell=True),
    }
    results = measure(rows, args.rounds, len(lines), "bare parse (formualizer)", args.file.name)
    if args.books:
        items = book_items()
        texts = [item[0] for item in items]
        book_rows = {
            "bare parse (formualizer)": lambda: bare(texts),
            "whole path (+ sheet, cell, R1C1)": lambda: whole_cells(items),
            "whole path, no reuse": lambda: whole_cells(items, reuse=False),
        }
        results += measure(
            book_rows, args.rounds, len(items), "bare parse (formualizer)", "EUSES workbook cells"
        )
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"Formula path speed, CPU seconds, best of {args.rounds}")
    for col in ("list", "row", "formulas", "parsed", "seconds", "formulas/s", "ratio to bare"):
        t.add_column(col, justify="left" if col in ("list", "row") else "right")
    for r in results:
        t.add_row(
            r["section"], r["row"], str(r["formulas"]), str(r["parsed"]), f"{r['seconds']:.3f}",
            f"{r['formulas_per_s']:,.0f}", f"{r['ratio_to_bare']:.2f}",
        )  # fmt: skip
    Console(width=120).print(t)
    targets = []
    for r in results:
        if (
            r["row"].startswith("whole path")
            and "no reuse" not in r["row"]
            and "+ cell" not in r["row"]
        ):
            targets.append({"name": f"whole path / bare parse ({r['section']})",
                            "value": r["ratio_to_bare"], "target": 0.40,
                            "met": r["ratio_to_bare"] >= 0.40})  # fmt: skip
            print(f"{r['section']}: whole path at {100 * r['ratio_to_bare']:.1f} % of bare-parse "
                  "speed (target 40 %)")  # fmt: skip
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"results": results, "targets": targets}, indent=2))


if __name__ == "__main__":
    main()
