"""`bench/table_qa_formulas.py`'s core on a literal table, no model: an execution's Excel formula
written into the table's own sheet (the table-to-workbook writer, through .xlsx bytes),
recomputed by formualizer and matched against the gold and the executed answer."""

from __future__ import annotations

import pytest
from bench.table_qa_formulas import check, grid_of, recompute, tally

from fortap.table.hitab import table_from_hitab
from fortap.tasks.table_qa.answer_formula import answer_formula
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.operations import execute

#     A         B      C
# 1             2015   2016
# 2   ontario   40     50
# 3   quebec    30     45
# 4   share     12%    8%      (percentages written as text, as HiTab does)
RAW = {
    "texts": [["", "2015", "2016"], ["ontario", "40", "50"], ["quebec", "30", "45"],
              ["share", "12%", "8%"]],
    "top_header_rows_num": 1,
    "left_header_columns_num": 1,
}  # fmt: skip


@pytest.fixture(scope="module")
def table():
    return table_from_hitab(RAW, "t.json")


@pytest.mark.parametrize(
    ("op", "cells", "formula", "gold"),
    [
        ("ratio_down", [(2, 1), (1, 1)], "=B3/B2", [0.75]),
        ("diff", [(1, 2), (2, 2)], "=ABS(C2-C3)", ["5"]),
        ("none", [(1, 1), (1, 2), (2, 1), (2, 2)], "=B2:C3", [40, 50, 30, 45]),  # spills 2x2
        ("argmax", [(1, 2), (2, 2)], "=INDEX(A2:A3,MATCH(MAX(C2:C3),C2:C3,0))", ["Ontario"]),
    ],
)
def test_a_formula_recomputes_to_the_gold(table, op, cells, formula, gold):
    paths = HeaderPaths(table)
    run = execute(op, cells, paths)
    assert answer_formula(op, run, paths) == formula
    verdict = check(grid_of(table), formula, run.answer, gold)
    assert verdict["correct"] and verdict["formula_gold"] and verdict["formula_executed"]


def test_text_percentages_are_summed_by_execute_but_not_by_the_sheet(table):
    paths = HeaderPaths(table)
    run = execute("sum", [(3, 1), (3, 2)], paths)
    assert run.answer == (20.0,)
    verdict = check(grid_of(table), "=SUM(B4:C4)", run.answer, ["20"])
    assert verdict == {"recomputed": [0.0], "correct": True, "formula_gold": False,
                       "formula_executed": False}  # fmt: skip


def test_an_error_comes_back_as_its_text(table):
    assert recompute(grid_of(table), "=B2/0") == ["#DIV/0!"]


def test_tally_counts_per_operation_then_all():
    records = [
        {"op": "none", "answered": True, "correct": True, "formula_gold": True,
         "formula_executed": True},
        {"op": "sum", "answered": True, "correct": True, "formula_gold": False,
         "formula_executed": False},
        {"op": "sum", "answered": True, "correct": False, "formula_gold": False,
         "formula_executed": True},
        {"op": "", "answered": False},
    ]  # fmt: skip
    rows = {r["op"]: r for r in tally(records)}
    assert list(rows) == ["(no answer)", "none", "sum", "all"]
    assert rows["all"] == {"op": "all", "questions": 4, "answered": 3, "correct": 2,
                           "formula_matches_gold": 1, "share_of_correct": 0.5,
                           "formula_matches_executed": 2, "share_of_answered": 2 / 3}  # fmt: skip
    assert rows["(no answer)"]["share_of_correct"] is None
