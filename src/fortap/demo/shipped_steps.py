"""The demo's steps over the two shipped models (9-10): no training, the folders in `models/`.

Both work on one sample sheet, `SHEET`: population.xlsx's "Table 12", a statistical-abstract
table like the SAUS sheets the cell-type model learned from (a title, a units note, two header
rows, a national total over region subtotals over states, footnotes). Step 9 types its cells with
`models/cell-types` as `fortap cell-types` does (`tasks.cell_types.show.run_cell_types`) and
writes the PNG into the demo folder; step 10 asks `QUESTIONS` of its table with
`models/table-qa` as `fortap ask` does (`tasks.table_qa.ask`). A missing model folder, or a demo
run without that workbook, is said in one line and the demo goes on.

The questions are a cell lookup and a comparison (argmax) that the shipped model answers right
on the books of seed 0 (and of seeds 1 and 3; on seed 2 it picks the wrong cells for the
comparison). It answers 42 % of HiTab's test questions, and asked for a difference or a sum on
these sheets it mostly looks up one cell instead, so the demo asks what it can do.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from fortap.errors import FortapError
from fortap.tasks.cell_types.cell_typer import SHIPPED as CELL_TYPES_MODEL
from fortap.tasks.cell_types.show import run_cell_types
from fortap.tasks.table_qa.ask import SHIPPED as TABLE_QA_MODEL
from fortap.tasks.table_qa.ask import Answer, ask, read_table, render

SHEET = ("population", "Table 12")  # (sample book, sheet) both steps use
QUESTIONS = (
    "what was the population of texas in 2020?",  # a lookup: C18
    "which year had a larger population in texas, 2010 or 2020?",  # argmax over B18:C18
)
GRID_ROWS = 12  # title, note, headers, the total and the first region: the PNG has all


def step_cell_types(
    books: list[Path], png: Path, console: Console, model: Path | None = None
) -> Path | None:
    """Step 9: the sample sheet typed cell by cell by `model` (default: the shipped one), its
    first rows printed and its PNG written to `png`; returns `png`, or None when skipped."""
    title = "[bold]9. cell types[/bold]"
    book = _sample_book(books)
    folder = model or CELL_TYPES_MODEL
    if book is None or not folder.is_dir():
        console.print(f"{title}: skipped, {_missing(book, folder)}")
        return None
    t0 = time.perf_counter()
    console.print(f"{title}: {book.name} '{SHEET[1]}', every non-empty cell")
    run_cell_types(book, SHEET[1], model, png, GRID_ROWS, console=console, overwrite=True)
    console.print(f"   {time.perf_counter() - t0:.1f}s (model load, features, typing, PNG)")
    return png


def step_table_qa(
    books: list[Path], console: Console, model: Path | None = None
) -> tuple[Answer, ...]:
    """Step 10: `QUESTIONS` asked of the sample sheet's table by `model` (default: the shipped
    one); each answer printed as `fortap ask` prints it. Returns the answers (none when skipped)."""
    title = "[bold]10. table QA[/bold]"
    book = _sample_book(books)
    folder = model or TABLE_QA_MODEL
    if book is None or not folder.is_dir():
        console.print(f"{title}: skipped, {_missing(book, folder)}")
        return ()
    t0 = time.perf_counter()
    table = read_table(book, SHEET[1])
    console.print(f"{title}: {len(QUESTIONS)} questions on {book.name} '{SHEET[1]}' "
                  f"({table.region.a1})")  # fmt: skip
    answers = []
    for question in QUESTIONS:
        console.print(f"   Q: {question}", markup=False, highlight=False)
        try:
            answers.append(ask(table, question, model))
        except FortapError as err:  # cells that hold nothing: another seed's numbers
            console.print(f"      {err}", markup=False, highlight=False)
            continue
        for line in render(answers[-1]):
            console.print(f"      {line}", markup=False, highlight=False)
    console.print(f"   {time.perf_counter() - t0:.1f}s (table read, model load, answers)")
    return tuple(answers)


def _sample_book(books: list[Path]) -> Path | None:
    return next((b for b in books if b.stem == SHEET[0]), None)


def _missing(book: Path | None, model: Path) -> str:
    if book is None:
        return f"no {SHEET[0]} workbook among the samples"
    return f"no model folder {escape(str(model))}"
