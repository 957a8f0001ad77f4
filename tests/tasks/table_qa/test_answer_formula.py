"""Every operation's answer as an Excel formula, computed by formualizer (the engine previews
use, through `suggest.calc_book`) and compared with `operations.execute`'s answer: on a literal
two-level HiTab-style table (its own grid, at A1) and on a workbook whose table starts at C4."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.sheet.model import Sheet, Workbook
from fortap.sheet.read import read_workbook
from fortap.suggest.calc_book import engine_from_cells, load_engine
from fortap.table.hitab import table_from_hitab
from fortap.tasks.table_qa.answer_formula import answer_formula, grid_note
from fortap.tasks.table_qa.ask import read_table
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.matching import answers_match
from fortap.tasks.table_qa.operations import OPS, execute

#     A         B      C      D      E
# 1             2015          2016           (B1:C1 and D1:E1 merged)
# 2             men    women  men    women
# 3   canada    100    120    130    90      left tree: canada > ontario, quebec, alberta
# 4   ontario   40     50     45     55
# 5   quebec    30     45     45     25
# 6   alberta   12     14     16     11
RAW = {
    "title": "population by province, year and sex",
    "texts": [["", "2015", "", "2016", ""], ["", "men", "women", "men", "women"],
              ["canada", "100", "120", "130", "90"], ["ontario", "40", "50", "45", "55"],
              ["quebec", "30", "45", "45", "25"], ["alberta", "12", "14", "16", "11"]],
    "merged_regions": [{"first_row": 0, "last_row": 0, "first_column": 1, "last_column": 2},
                       {"first_row": 0, "last_row": 0, "first_column": 3, "last_column": 4}],
    "top_header_rows_num": 3,
    "left_header_columns_num": 1,
    "top_root": {"row_index": -1, "column_index": -1, "children": [
        {"row_index": 0, "column_index": 1, "children": [
            {"row_index": 1, "column_index": 1, "children": []},
            {"row_index": 1, "column_index": 2, "children": []}]},
        {"row_index": 0, "column_index": 3, "children": [
            {"row_index": 1, "column_index": 3, "children": []},
            {"row_index": 1, "column_index": 4, "children": []}]}]},
    "left_root": {"row_index": -1, "column_index": -1, "children": [
        {"row_index": 2, "column_index": 0, "children": [
            {"row_index": 3, "column_index": 0, "children": []},
            {"row_index": 4, "column_index": 0, "children": []},
            {"row_index": 5, "column_index": 0, "children": []}]}]},
}  # fmt: skip

CASES = [  # op, cells, formula
    ("none", [(3, 2)], "=C4"),
    ("none", [(3, 0), (4, 0)], "=A4:A5"),
    ("none", [(5, 0), (3, 0)], "=HSTACK(A6,A4)"),
    ("sum", [(3, 1), (4, 1), (5, 1)], "=SUM(B4:B6)"),
    ("sum", [(3, 1), (5, 1), (3, 3)], "=SUM(B4,B6,D4)"),
    ("sum", [(3, 2), (4, 1), (3, 1), (4, 2)], "=SUM(B4:C5)"),
    ("average", [(4, 1), (3, 1)], "=AVERAGE(B4:B5)"),
    ("max", [(3, 1), (3, 2), (3, 4)], "=MAX(B4:C4,E4)"),
    ("min", [(3, 1), (4, 1), (5, 1)], "=MIN(B4:B6)"),
    ("count", [(2, 1), (3, 1), (4, 1), (5, 1)], "=COUNTA(B3:B6)"),
    ("diff", [(3, 2), (4, 2)], "=ABS(C4-C5)"),
    ("ratio_down", [(2, 2), (3, 2)], "=C4/C3"),
    ("ratio_up", [(2, 2), (3, 2)], "=C3/C4"),
    ("part_ratio", [(3, 1), (2, 1), (4, 1), (5, 1)], "=SUM(B4:B6)/B3"),
    ("opposite", [(3, 1)], "=-B4"),
    ("argmax", [(3, 1), (4, 1), (5, 1)], "=INDEX(A4:A6,MATCH(MAX(B4:B6),B4:B6,0))"),
    ("argmin", [(5, 1), (3, 1), (4, 1)], "=INDEX(A4:A6,MATCH(MIN(B4:B6),B4:B6,0))"),
    ("argmax", [(3, 1), (3, 2), (3, 3), (3, 4)],
     "=CHOOSE(MATCH(MAX(B4:E4),B4:E4,0),B1,B1,D1,D1)"),  # headers shared by merged years
    ("argmax", [(3, 1), (5, 1), (2, 1)],
     "=IF(B3=MAX(B3,B4,B6),A3,IF(B4=MAX(B3,B4,B6),A4,A6))"),
    ("pair_max", [(4, 3), (3, 3)], "=INDEX(A4:A5,MATCH(MAX(D4:D5),D4:D5,0))"),  # a tie: ontario
    ("pair_min", [(3, 1), (3, 3)], "=IF(B4=MIN(B4,D4),B1,D1)"),
]  # fmt: skip


def grid_book(table) -> Workbook:
    """The HiTab table's grid as a one-sheet workbook, its row 0 as row 1."""
    cells = {(r, c): table.cell(r, c) for r in range(table.n_rows) for c in range(table.n_cols)}
    sheet = Sheet("grid", "grid.xlsx", table.n_rows, table.n_cols,
                  {rc: cell for rc, cell in cells.items() if not cell.is_empty})  # fmt: skip
    return Workbook("grid.csv", (sheet,))


def computed(engine, sheet: str, formula: str, row: int = 40, col: int = 10) -> list:
    """What `formula` gives put into the free cell (row, col), 1-based: its value, or the
    values it spills, row by row."""
    engine.set_formula(sheet, row, col, formula)
    engine.evaluate_all()
    grid = [[engine.get_value(sheet, row + dr, col + dc) for dc in range(6)] for dr in range(6)]
    return [value for line in grid for value in line if value is not None]


def test_cases_cover_every_operation():
    assert {op for op, *_ in CASES} == set(OPS)


@pytest.mark.parametrize(("op", "cells", "formula"), CASES)
def test_formula_computes_the_answer_on_the_grid(op, cells, formula):
    table = table_from_hitab(RAW, "grid.json")
    paths = HeaderPaths(table)
    run = execute(op, cells, paths)
    assert run is not None
    assert answer_formula(op, run, paths) == formula
    value = computed(engine_from_cells(grid_book(table)), "grid", formula)
    assert answers_match(value, run.answer), (value, run.answer)


def test_tie_goes_to_the_first_in_the_table_in_both():
    paths = HeaderPaths(table_from_hitab(RAW, "grid.json"))
    assert execute("pair_max", [(4, 3), (3, 3)], paths).answer == ("ontario",)


def test_grid_note_only_for_a_hitab_table(tmp_path):
    assert "HiTab table's own grid" in grid_note(table_from_hitab(RAW, "grid.json"))
    assert grid_note(read_table(flat_book_path(tmp_path))) == ""


def flat_book_path(folder: Path) -> Path:
    """A workbook whose table (Province | 2015 2016 2017) starts at C4 under a title in A1."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Pop"
    sheet["A1"] = "Population by province"
    rows = [["Province", "2015", "2016", "2017"], ["Canada", 100, 120, 130],
            ["Ontario", 40, 50, 45], ["Quebec", 30, 45, 45], ["Alberta", 12, 14, 16]]  # fmt: skip
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            sheet.cell(row=4 + i, column=3 + j, value=value)
    path = folder / "population.xlsx"
    book.save(path)
    return path


SHEET_CASES = [  # op, cells (table-relative), formula in the sheet's own references
    ("none", [(2, 2)], "=E6"),
    ("sum", [(2, 1), (3, 1), (4, 1)], "=SUM(D6:D8)"),
    ("average", [(1, 1), (1, 2), (1, 3)], "=AVERAGE(D5:F5)"),
    ("max", [(1, 2), (4, 2)], "=MAX(E5,E8)"),
    ("min", [(1, 3), (2, 3)], "=MIN(F5:F6)"),
    ("count", [(2, 1), (2, 2)], "=COUNTA(D6:E6)"),
    ("diff", [(2, 3), (3, 3)], "=ABS(F6-F7)"),
    ("ratio_down", [(1, 1), (2, 1)], "=D6/D5"),
    ("ratio_up", [(1, 1), (2, 1)], "=D5/D6"),
    ("part_ratio", [(1, 2), (2, 2), (3, 2), (4, 2)], "=SUM(E6:E8)/E5"),
    ("opposite", [(4, 3)], "=-F8"),
    ("argmax", [(2, 1), (3, 1), (4, 1)], "=INDEX(C6:C8,MATCH(MAX(D6:D8),D6:D8,0))"),
    ("argmin", [(2, 1), (2, 2), (2, 3)], "=INDEX(D4:F4,MATCH(MIN(D6:F6),D6:F6,0))"),
    ("pair_max", [(3, 2), (3, 3)], "=INDEX(E4:F4,MATCH(MAX(E7:F7),E7:F7,0))"),  # a tie: 2016
    ("pair_min", [(4, 1), (2, 1)], "=IF(D6=MIN(D6,D8),C6,C8)"),
]  # fmt: skip


def test_sheet_cases_cover_every_operation():
    assert {op for op, *_ in SHEET_CASES} == set(OPS)


@pytest.mark.parametrize(("op", "cells", "formula"), SHEET_CASES)
def test_formula_computes_the_answer_in_its_sheet(tmp_path, op, cells, formula):
    path = flat_book_path(tmp_path)
    table = read_table(path)
    assert (table.region.top, table.region.left) == (3, 2)  # C4
    paths = HeaderPaths(table)
    run = execute(op, cells, paths)
    assert run is not None
    assert answer_formula(op, run, paths) == formula
    value = computed(load_engine(read_workbook(path)), "Pop", formula)
    assert answers_match(value, run.answer), (value, run.answer)


def test_an_execution_without_operands_is_refused():
    paths = HeaderPaths(table_from_hitab(RAW, "grid.json"))
    run = execute("sum", [(3, 1), (4, 1)], paths)
    bare = type(run)(run.answer, run.formula, run.named)
    with pytest.raises(ValueError, match="records no operands"):
        answer_formula("sum", bare, paths)


def test_ask_prints_the_formula_and_gives_it_in_json(tmp_path):
    book = flat_book_path(tmp_path)
    question = "how many people in quebec in 2016?"
    printed = CliRunner().invoke(app, ["ask", str(book), question, "--rule"])
    assert printed.exit_code == 0, printed.output
    assert printed.output.splitlines()[:4] == ["answer: 45", "operation: none",
                                               "= E7 (Quebec 2016)", "formula: =E7"]  # fmt: skip
    found = CliRunner().invoke(app, ["ask", str(book), question, "--json", "--rule"])
    assert found.exit_code == 0, found.output
    assert json.loads(found.output) == {
        "answer": [45.0], "operation": "none", "formula": "=E7", "formula_note": "",
        "cells": [{"ref": "E7", "value": "45", "headers": "2016 > Quebec"}],
        "source": "header-overlap rule", "model": None,
        "confidence": None, "uncertain": False, "next_best": None,  # no reranker: no confidence
    }  # fmt: skip


def test_ask_on_a_hitab_json_says_the_formula_is_in_its_grid(tmp_path):
    path = tmp_path / "grid.json"
    path.write_text(json.dumps(RAW))
    found = CliRunner().invoke(app, ["ask", str(path), "how many women in ontario in 2015?",
                                     "--rule"])  # fmt: skip
    assert found.exit_code == 0, found.output
    line = found.output.splitlines()[3]
    assert line == "formula: =C4   (A1 of the HiTab table's own grid, its texts row 0 as row 1: " \
        "it has no sheet)"  # fmt: skip


def test_ask_without_the_shipped_model_says_where_it_would_be(tmp_path, monkeypatch):
    from fortap.tasks.table_qa import ask

    monkeypatch.setattr(ask, "SHIPPED", tmp_path / "models" / "table-qa")  # not installed
    book = flat_book_path(tmp_path)
    printed = CliRunner().invoke(app, ["ask", str(book), "how many people in quebec in 2016?"])
    assert printed.exit_code == 0, printed.output
    last = " ".join(printed.output.split())
    assert "answered by the header-overlap rule (the shipped models come in" in last
    assert "set FORTAP_MODELS" in last
