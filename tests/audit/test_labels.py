"""Years and codes that head a block are labels, not typed numbers missing a formula; and a
number a total already adds up is not itself a missing total."""

from __future__ import annotations

from fortap.audit.aggregates import adds_up_to, shorts, totalled
from fortap.audit.auditor import AuditConfig, audit
from fortap.audit.findings import MISSING
from fortap.audit.labels import labels
from fortap.audit.missing import numbers
from fortap.suggest.engine import Suggester

from .books import year_block
from .grids import sheet_context

EVERY = AuditConfig(min_score=0.0)  # every finding, whatever its score


def test_year_header_over_a_dragged_block_is_not_flagged(tmp_path):
    done = audit(Suggester.open(year_block(tmp_path / "y.xlsx")), cfg=EVERY)
    assert done.labels == 5  # B3:F3
    assert [f.a1 for f in done.findings if f.row == 2] == []


def test_typed_number_in_that_block_is_still_flagged(tmp_path):
    done = audit(Suggester.open(year_block(tmp_path / "t.xlsx", typed=True)))
    assert done.labels == 5
    (f,) = done.findings
    assert (f.sheet, f.a1, f.kind, f.fix) == ("Plan", "E4", MISSING, "=D4*(1+$B$1)")
    assert f.evidence.startswith("E4 holds 133.1 typed by hand; =D4*(1+$B$1) gives 133.1")


def test_year_and_code_lines():
    grid = [
        [None, 2007, 2010, 2015, 2020],  # years over the block: labels
        [1, 3.5, "=B2*2", "=C2*2", "=D2*2"],  # codes 1, 2, 3 down column A: labels
        [2, 4.5, "=B3*2", "=C3*2", "=D3*2"],
        [3, 10, 11, 12, None],  # 10, 11, 12 counts up, but not from 1: figures
        [None, 2001, 2002],  # two years side by side: as often two figures
    ]
    sc = sheet_context(grid)
    assert labels(sc, numbers(sc)) == {(0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (2, 0), (3, 0)}


def test_newest_year_first_and_codes_from_zero_are_lines_a_turn_is_not():
    grid = [
        [None, 2023, 2022, 2021, 2020],  # the newest year first: labels
        [0, 3.5, "=B2*2", "=C2*2", "=D2*2"],  # codes 0, 1, 2 down column A: labels
        [1, 4.5, "=B3*2", "=C3*2", "=D3*2"],
        [2, 1999, 2005, 2001, None],  # up, then down: no three-year line either way
    ]
    sc = sheet_context(grid)
    assert labels(sc, numbers(sc)) == {(0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (2, 0), (3, 0)}


def test_years_a_formula_continues_are_typed_numbers_but_the_seed():
    # TASI's key counts 1991..1993 as missing formulas: the line goes on as =A4+1, =A5+1
    grid = [["Year"], [1990], [1991], [1992], [1993], [("=A5+1", 1994)], [("=A6+1", 1995)]]
    sc = sheet_context(grid)
    assert labels(sc, numbers(sc)) == {(1, 0)}


def test_totals_that_look_like_years_are_no_line_of_years():
    grid = [
        [None, "Debt", "Payables", "Total"],
        ["2003", 900, 1044, ("=SUM(B2:C2)", 1944)],
        ["2002", 940, 997, 1937],
        ["2001", 880, 961, 1841],
    ]  # D2:D4 shows 1944, 1937, 1841: totals (D3, D4 typed over =SUM), not a line of years
    sc = sheet_context(grid)
    assert labels(sc, numbers(sc)) == set()


def test_codes_counted_on_by_a_formula_are_a_line_whose_seed_is_a_label():
    # =MAX(A$1:A1)+1 reads a range, but it counts on: it is no total, and the line holds
    grid = [[1], [("=MAX(A$1:A1)+1", 2)], [("=MAX(A$1:A2)+1", 3)], [("=MAX(A$1:A3)+1", 4)]]
    sc = sheet_context(grid)
    assert labels(sc, numbers(sc)) == {(0, 0)}


def test_year_label_is_no_number_a_total_leaves_out():
    grid = [
        ["Site", 2000, 2001, 2002],
        ["North", 4.4, 4.3, 4.5],
        ["South", 4.2, 4.6, 4.1],
        ["Mean", "=AVERAGE(B2:B3)", "=AVERAGE(C2:C3)", "=AVERAGE(D2:D3)"],
    ]
    sc = sheet_context(grid)
    assert len(shorts(sc)) == 3  # read as numbers, 2000 would be left out of each mean
    assert shorts(sc, labels(sc, numbers(sc))) == []


def test_inputs_of_a_total_are_no_missing_totals():
    grid = [
        ["Site", "Mean"],
        ["A", 14],
        ["B", 15],
        ["C", 14],
        [None, None],
        ["State", "=AVERAGE(B2:B4)"],  # the table's own total, after a blank row
        ["Row", 1, 2, "=SUM(B7:C7)"],
    ]
    sc = sheet_context(grid)
    assert totalled(sc, numbers(sc)) == {(1, 1), (2, 1), (3, 1), (6, 1), (6, 2)}
    # an engine's copy of that total, moved up to C, "gives" 14: the rule discards it
    assert adds_up_to("=AVERAGE(B1:B3)", "S", (3, 1))
    assert adds_up_to("=SUM(B7:B7)", "S", (6, 2))
    assert not adds_up_to("=B3+1", "S", (3, 1))
    assert not adds_up_to("=SUM(C1:C3)", "S", (3, 1))  # another column's total
    assert not adds_up_to("=SUM(", "S", (3, 1))  # does not parse: no total
