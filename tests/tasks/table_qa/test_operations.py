"""Every operation executed on the literal tiny table, and HiTab's labels mapped onto them."""

from __future__ import annotations

import pytest

from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.operations import OPS, execute, op_of_labels
from tests.tasks.table_qa.tiny import tiny_table

CASES = [  # op, cells, answer, formula
    ("none", [(2, 2)], (50.0,), "= C3"),
    ("none", [(2, 0), (3, 0)], ("ontario", "quebec"), "= A3, A4"),
    ("sum", [(2, 1), (3, 1)], (70.0,), "= SUM(B3, B4)"),
    ("average", [(2, 1), (3, 1)], (35.0,), "= AVERAGE(B3, B4)"),
    ("diff", [(2, 2), (3, 2)], (5.0,), "= ABS(C3 - C4)"),
    ("ratio_down", [(1, 2), (2, 2)], (50 / 120,), "= C3 / C2"),
    ("ratio_up", [(1, 2), (2, 2)], (120 / 50,), "= C2 / C3"),
    ("part_ratio", [(1, 2), (2, 2), (3, 2)], (95 / 120,), "= (C3 + C4) / C2"),
    ("opposite", [(2, 1)], (-40.0,), "= -B3"),
    ("max", [(2, 1), (3, 1)], (40.0,), "= MAX(B3, B4)"),
    ("min", [(2, 1), (3, 1)], (30.0,), "= MIN(B3, B4)"),
    ("count", [(1, 1), (2, 1), (3, 1)], (3.0,), "= COUNTA(B2, B3, B4)"),
    ("argmax", [(2, 1), (3, 1)], ("ontario",), "= ARGMAX(B3, B4) -> A3"),
    ("argmin", [(2, 1), (3, 1)], ("quebec",), "= ARGMIN(B3, B4) -> A4"),
    ("pair_max", [(2, 1), (2, 2)], ("2016",), "= ARGMAX(B3, C3) -> C1"),
    ("pair_min", [(2, 1), (2, 2)], ("2015",), "= ARGMIN(B3, C3) -> B1"),
]


def test_cases_cover_every_operation():
    assert {op for op, *_ in CASES} == set(OPS)


@pytest.mark.parametrize(("op", "cells", "answer", "formula"), CASES)
def test_execute(op, cells, answer, formula):
    run = execute(op, cells, HeaderPaths(tiny_table()))
    assert run is not None
    assert (
        run.answer == pytest.approx(answer)
        if isinstance(answer[0], float)
        else run.answer == answer
    )
    assert run.formula == formula


def test_ratio_names_the_cells_by_their_headers():
    run = execute("ratio_down", [(2, 2), (1, 2)], HeaderPaths(tiny_table()))
    assert run.show() == "= C3 / C2 (canada ontario 2016 ÷ canada 2016)"


def test_cannot_run_on_text_or_zero_or_nothing():
    paths = HeaderPaths(tiny_table())
    assert execute("sum", [(2, 0)], paths) is None  # a header: no number
    assert execute("sum", [], paths) is None
    assert execute("sum", [(9, 9)], paths) is None  # outside the table


def test_hitab_header_count_is_one_too_many():
    paths = HeaderPaths(tiny_table())
    assert paths.table.top_header_rows == 2
    assert paths.header_rows == 1 and paths.data_rows() == [1, 2, 3]


@pytest.mark.parametrize(
    ("labels", "answer", "op"),
    [(["none"], [1.0], "none"), (["div"], [0.4], "ratio_down"), (["div"], [2.4], "ratio_up"),
     (["sum", "div"], [0.8], "part_ratio"), (["max"], ["ontario"], "argmax"),
     (["max"], [40.0], "max"), (["pair-argmin"], ["x"], "pair_min"), (["less_than"], ["x"], "pair_min"),
     (["counta"], [3], "count"), (["topk-argmax"], ["a", "b"], None), (["diff", "div"], [0.1], None)],
)  # fmt: skip
def test_op_of_labels(labels, answer, op):
    assert op_of_labels(labels, answer) == op
