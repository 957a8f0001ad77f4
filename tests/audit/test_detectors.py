"""The structural detectors on literal sheets: exact cells, fixes and what they measured."""

from __future__ import annotations

from fortap.audit.inconsistent import breaks, describe
from fortap.audit.missing import holes, numbers

from .grids import sheet_context

AMOUNTS = [
    ["Qty", "Price", "Amount"],
    [3, 2.5, "=A2*B2"],
    [4, 1.25, "=A3*B3"],
    [10, 0.5, "=A4*B4"],
    [7, 3, "=A5*B4"],  # the reference to B shifted by one row
    [2, 9, "=A6*B6"],
    [5, 1, "=A7*B7"],
    ["Total", None, "=SUM(C2:C7)"],
]


def test_shifted_reference_breaks_its_block():
    (found,) = breaks(sheet_context(AMOUNTS))
    assert found.cell == (4, 2)
    assert found.fix == "=A5*B5"
    assert found.run.span() == "C2:C8"
    assert (found.share, found.interior, found.odd) == (5 / 7, True, 1)
    assert found.detail == "a reference shifted by one (B4 for B5)"
    assert describe(found) == (
        "=A5*B4 breaks the column block C2:C8 (5 of 7 cells hold its formula, =A4*B4 at C4): "
        "a reference shifted by one (B4 for B5)"
    )


def test_short_range_and_total_not_flagged():
    grid = [
        ["Item", "Y1", "Y2", "Y3", "Sum"],
        ["Rent", 900, 910, 935, "=SUM(B2:D2)"],
        ["Food", 310, 290, 305, "=SUM(B3:D3)"],
        ["Fuel", 120, 95, 130, "=SUM(C4:D4)"],
        ["Books", 40, 55, 20, "=SUM(B5:D5)"],
        ["Total", "=SUM(B2:B5)", "=SUM(C2:C5)", "=SUM(D2:D5)", "=SUM(E2:E5)"],
    ]
    (found,) = breaks(sheet_context(grid))
    assert (found.cell, found.fix) == ((3, 4), "=SUM(B4:D4)")
    assert found.detail == "a range stopping short of its neighbours' (C4:D4 for B4:D4)"


def test_other_computation_is_not_a_break():
    grid = [["=A1+1"], ["=A2+1"], ["=A3*2"], ["=A4+1"]]  # another sketch: a new formula
    assert breaks(sheet_context(grid)) == []


def test_typed_number_between_formulas_is_a_hole():
    grid = [
        ["Region", "Q1", "Q2", "Total"],
        ["North", 120, 130, "=B2+C2"],
        ["South", 80, 95, "=B3+C3"],
        ["East", 150, 160, 310],  # typed over the formula
        ["West", 70, 60, "=B5+C5"],
    ]
    sc = sheet_context(grid)
    assert (3, 3) in numbers(sc)
    found = [h for h in holes(sc) if h.cell == (3, 3)]
    assert [(h.run.axis, h.fix, h.hole, h.formulas, h.share) for h in found] == [
        (0, "=B4+C4", True, 3, 1.0)
    ]


def test_formula_dragged_down_says_nothing_of_its_row():
    grid = [["Cost", "Tax"], [100, "=A2*0.2"], [250, "=A3*0.2"], [80, "=A4*0.2"]]
    sc = sheet_context(grid)
    assert holes(sc) == []  # A2:A4 are inputs: C's formulas run down, not along the rows


def test_total_stopping_short_of_its_numbers():
    from fortap.audit.aggregates import shorts

    grid = [
        ["School", "Pupils"],
        ["A", 12],
        ["B", 15],
        ["C", 9],
        ["Total", "=SUM(B3:B4)"],  # leaves out B2
        ["Other", "=SUM(B2:B4)"],  # two rows below its range's end: fine, B1 is text
    ]
    (found,) = shorts(sheet_context(grid))
    assert (found.cell, found.left_out, found.fix) == ((4, 1), 1, "=SUM(B2:B4)")
