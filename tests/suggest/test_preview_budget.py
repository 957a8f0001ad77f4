"""Bounded previews (`preview_budget`): a chain too long is cut and says so, an engine route the
call's time budget leaves out says so, and the cells put back after an engine preview read as
they were."""

from __future__ import annotations

import pytest

from fortap.sheet.model import Cell, Sheet, Workbook
from fortap.suggest.preview import Preview, Previewer
from fortap.suggest.preview_budget import (
    UNBOUNDED,
    CallBudget,
    EngineCosts,
    PreviewLimits,
    chain_reason,
)

LONG = 1_500  # A1 = 1, A2 = A1 + 1, ..., A1500 = A1499 + 1: 1,499 references in a chain


def _chain_book(n: int) -> Workbook:
    """Sheet "S": column A a chain of `n` cells counting 1..n (cached values given), B1 = 5."""
    grid = {(0, 0): Cell(1.0, "number"), (0, 1): Cell(5.0, "number")}
    for r in range(1, n):
        grid[(r, 0)] = Cell(float(r + 1), "number", f"=A{r}+1")
    return Workbook("chain.csv", (Sheet("S", "chain.csv", n, 3, grid),))


@pytest.fixture(scope="module")
def long_chain() -> Previewer:
    return Previewer.load(_chain_book(LONG))


def test_a_chain_longer_than_the_bound_is_cut_and_says_so(long_chain):
    # a whole column goes through the loaded engine, which would walk the 1,500-cell chain
    got = long_chain.preview("S", 1, 3, "=SUM(A:A)")
    note = "not computed: its chain of precedents is longer than 1,000 references"
    assert got == Preview(None, None, "engine", note)
    assert chain_reason(1_000) in note and not got.computed and not got.own_error


def test_the_same_chain_is_computed_without_the_bound(long_chain):
    long_chain.limits = UNBOUNDED
    try:
        got = long_chain.preview("S", 1, 3, "=SUM(A:A)")
    finally:
        long_chain.limits = PreviewLimits()
    assert got == Preview(LONG * (LONG + 1) / 2, None, "engine")


def test_a_short_chain_and_a_plain_copy_are_computed(long_chain):
    short = Previewer.load(_chain_book(20))
    assert short.preview("S", 1, 3, "=SUM(A:A)") == Preview(210.0, None, "engine")
    # the cells route copies values, it walks no chain: the long sheet's last cell is read
    assert long_chain.preview("S", 1, 3, f"=A{LONG}*2") == Preview(2.0 * LONG, None, "cells")


def test_values_alone_do_not_make_a_chain():
    grid = {(r, 0): Cell(1.0, "number") for r in range(5_000)}
    prev = Previewer.load(Workbook("v.csv", (Sheet("S", "v.csv", 5_000, 3, grid),)))
    assert prev.preview("S", 1, 3, "=SUM(A:A)") == Preview(5_000.0, None, "engine")


def test_the_calls_time_budget_leaves_out_an_engine_preview_and_says_so():
    prev = Previewer.load(_chain_book(20))
    prev.costs = EngineCosts([30.0, 400.0])  # one engine preview here took 400 ms
    got = prev.preview("S", 1, 3, "=SUM(A:A)", budget=CallBudget(250.0))
    assert not got.computed and got.route == "engine"
    assert got.note == (
        "not computed: previews through the whole workbook took up to 400 ms here, over the "
        "250 ms one suggestion may spend on them"
    )
    # the cells route is not limited by it, and no budget means no limit
    assert prev.preview("S", 1, 3, "=A20*2", budget=CallBudget(250.0)).value == 40.0
    assert prev.preview("S", 1, 3, "=SUM(A:A)").value == 210.0


def test_a_budget_records_what_the_engine_previews_cost():
    prev = Previewer.load(_chain_book(20))
    budget = CallBudget(250.0)
    prev.preview("S", 1, 3, "=SUM(A:A)", budget=budget)
    prev.preview("S", 1, 3, "=A20*2", budget=budget)  # cells route: not counted
    assert len(prev.costs.seen) == 1 and budget.spent_ms == pytest.approx(prev.costs.seen[0])
    # the call after one that spent it all: the engine route fits no more
    assert not prev.preview("S", 1, 3, "=SUM(A:A)", budget=CallBudget(0.001)).computed


def test_the_expected_time_is_the_largest_of_the_last_ones():
    costs = EngineCosts()
    assert costs.expected() == 0.0  # nothing known: the first evaluation runs
    for ms in (900.0, 10.0, 20.0, 30.0, 40.0, 50.0):
        costs.add(ms)
    assert costs.seen == [10.0, 20.0, 30.0, 40.0, 50.0] and costs.expected() == 50.0


def test_a_cell_put_back_after_an_engine_preview_reads_as_before():
    grid = {(0, 0): Cell(2.0, "number"), (0, 1): Cell(20.0, "number", "=A1*10")}
    prev = Previewer.load(Workbook("p.csv", (Sheet("S", "p.csv", 1, 3, grid),)))
    assert prev.preview("S", 1, 2, '=INDIRECT("A1")*3') == Preview(6.0, None, "engine")
    assert prev.value("S", 1, 2) == Preview(20.0, None, "engine")  # not 6
    assert prev.preview("S", 1, 3, "=B1+1") == Preview(21.0, None, "cells")


def test_cells_copied_by_one_preview_do_not_leak_into_the_next():
    grid = {(r, 0): Cell(float(r + 1), "number") for r in range(3)}
    prev = Previewer.load(Workbook("c.csv", (Sheet("S", "c.csv", 3, 3, grid),)))
    assert prev.preview("S", 1, 3, "=SUM(A1:A3)").value == 6.0
    hidden = frozenset({("S", 1, 0)})  # A2 reads as empty
    assert prev.preview("S", 1, 3, "=SUM(A1:A3)", hidden=hidden).value == 4.0
    assert prev.preview("S", 1, 3, "=COUNT(A1:A3)").value == 3.0


def test_limits_reject_nonsense_by_name():
    with pytest.raises(ValueError, match="chain_cells"):
        PreviewLimits(chain_cells=0)
    with pytest.raises(ValueError, match="call_ms"):
        PreviewLimits(call_ms=-1.0)
