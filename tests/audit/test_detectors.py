"""The structural detectors on literal sheets: exact cells, fixes and what they measured."""

from __future__ import annotations

import time

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
    assert found.by_one
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
    assert found.by_one  # one edge, moved by one


def test_break_of_a_stretch_that_is_not_the_run_majority():
    # C2:C6 add, C7:C10 subtract; C9 reads B8: its neighbours' formula is its block, though
    # the run's most frequent formula is the sum (another sketch)
    grid = [["a", "b", "c"]] + [[i, 2 * i, f"=A{i + 1}+B{i + 1}"] for i in range(1, 6)]
    grid += [[i, 2 * i, "=A9-B8" if i == 8 else f"=A{i + 1}-B{i + 1}"] for i in range(6, 10)]
    (found,) = breaks(sheet_context(grid))
    assert (found.cell, found.fix, found.share, found.odd) == ((8, 2), "=A9-B9", 3 / 9, 1)
    assert found.interior and found.by_one


def test_references_that_differ_only_in_dollars_are_no_slip():
    grid = [[i, 2, "=A3*B1" if i == 3 else f"=A{i}*$B$1"] for i in range(1, 6)]
    (found,) = breaks(sheet_context(grid))
    assert (found.cell, found.fix, found.by_one) == ((2, 2), "=A3*$B$1", False)


def test_reference_shifted_onto_its_own_run_is_a_break():
    # a counter down column A (=A1+1, ...); A4 reads A2, a cell of its own run: one cell more
    # than its block's formula covers is a slip, not a total over the run
    grid = [[1]] + [["=A2+1" if r == 4 else f"=A{r - 1}+1"] for r in range(2, 7)]
    (found,) = breaks(sheet_context(grid))
    assert (found.cell, found.fix, found.detail) == ((3, 0), "=A3+1", "a reference shifted by "
                                                    "one (A2 for A3)")  # fmt: skip
    assert found.interior and found.by_one


def test_other_computation_is_not_a_break():
    grid = [["=A1+1"], ["=A2+1"], ["=A3*2"], ["=A4+1"]]  # another sketch: a new formula
    assert breaks(sheet_context(grid)) == []


def test_formula_leaving_out_a_term_of_its_block_is_a_break():
    # D4 adds only C4 where its neighbours add B and C; E4 multiplies the same references (an
    # operator differing: the `differs` check's), and a formula with a term more is another
    # computation
    grid = [["Item", "Q1", "Q2", "Sum", "Ratio", "Plus"]]
    grid += [[f"i{r}", r, 2 * r, f"=B{r}+C{r}", f"=B{r}+C{r}", f"=B{r}+C{r}"] for r in range(2, 7)]
    grid[3][3], grid[3][4], grid[3][5] = "=C4", "=B4*C4", "=B4+C4+C3"
    found, other = sorted(breaks(sheet_context(grid)), key=lambda b: b.cell)
    assert (other.cell, other.differs, other.fix) == ((3, 4), "function", "=B4+C4")
    assert (found.cell, found.fix, found.dropped, found.by_one) == ((3, 3), "=B4+C4", True, False)
    assert found.detail == "a term left out (B4 of the block's formula)"


def test_running_balance_first_cell_leaves_out_no_term():
    # C2 =B2 starts a balance that C3:C6 carry on (=C2+B3, ...): the term it lacks would read
    # the header C1, so nothing is left out
    grid = [["Date", "Amount", "Balance"]]
    grid += [[d, 10 * d, "=B2" if d == 2 else f"=C{d - 1}+B{d}"] for d in range(2, 7)]
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


def test_typed_number_in_a_line_of_totals_across_a_spacer_column():
    from fortap.audit.missing import line_holes

    grid = [
        ["Item", "Q1", None, "Q2", "Q3"],
        ["a", 1, None, 2, 5],
        ["b", 3, None, 4, 7],
        ["Total", "=SUM(B2:B3)", None, 6, "=SUM(E2:E3)"],  # D4 typed: no run holds it
    ]
    sc = sheet_context(grid)
    assert [h.cell for h in holes(sc)] == []  # D2:D4 holds no formula, and C4 is blank
    (found,) = line_holes(sc, numbers(sc))
    assert (found.cell, found.line, found.fix, found.formulas) == ((3, 3), True, "=SUM(D2:D3)", 2)
    assert found.run.cells == ((3, 1), (3, 3), (3, 4)) and found.run.axis == 1


def test_typed_number_in_a_column_of_row_totals_left_of_its_rows():
    from fortap.audit.missing import line_holes

    grid = [
        ["Item", "Year", "Q1", "Q2"],
        ["a", 30, 10, 20],  # typed: the year's total, left of its quarters
        ["b", "=SUM(C3:D3)", 5, 7],
        ["c", 9, 4, 5],
    ]
    sc = sheet_context(grid)
    assert [h.cell for h in holes(sc)] == []  # one formula in B: no block runs through B2:B4
    found = line_holes(sc, numbers(sc))
    assert [(h.cell, h.fix, h.line) for h in found] == [
        ((1, 1), "=SUM(C2:D2)", True),
        ((3, 1), "=SUM(C4:D4)", True),
    ]


def test_a_total_of_one_cell_makes_no_line_of_totals():
    from fortap.audit.missing import line_holes

    grid = [
        ["Item", "Low", "Mid", "High"],
        ["a", 2, "=AVERAGE(B2,D2)", 4],
        ["b", 0, 0, 0],  # typed zeros below a block's formula
        ["c", 6, "=AVERAGE(B4,0)", 8],  # a reference typed over: "totals" B4 alone
        ["d", 0, 0, 0],
    ]
    sc = sheet_context(grid)
    assert line_holes(sc, numbers(sc)) == []
    grid[3][2] = "=SUM(A4:B4)"  # a total of two cells does make a column of row totals
    sc = sheet_context(grid)
    assert (2, 2) in [h.cell for h in line_holes(sc, numbers(sc))]


def test_typed_number_beside_a_total_over_the_rows_below_it():
    from fortap.audit.missing import line_holes

    grid = [
        ["Total", 11, "=SUM(C2:C3)"],  # B1 typed: a total standing over its numbers
        ["a", 5, 1],
        ["b", 6, 2],
    ]
    sc = sheet_context(grid)
    (found,) = line_holes(sc, numbers(sc))
    assert (found.cell, found.fix, found.run.axis) == ((0, 1), "=SUM(B2:B3)", 1)


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


def test_total_stopping_short_of_the_numbers_below_its_range():
    from fortap.audit.aggregates import shorts

    grid = [
        ["Item", "Cost", "Tax"],
        ["A", 12, 1],
        ["B", 15, 2],
        ["C", 9, None],  # a blank line between C's numbers and its total
        ["Total", "=SUM(B2:B3)", "=SUM(C2:C3)"],  # B leaves out B4, 9; C adds every number
    ]
    (found,) = shorts(sheet_context(grid))
    assert (found.cell, found.left_out, found.below, found.fix) == ((4, 1), 0, 1, "=SUM(B2:B4)")


def test_total_reaching_past_its_numbers_into_empty_cells():
    from fortap.audit.aggregates import shorts

    grid = [
        ["Item", "Cost", "Tax"],
        ["Revenue:", None, None],
        ["A", 12, 1],
        ["B", 15, 2],
        [None, None, None],
        ["Total", "=SUM(B2:B4)", "=SUM(C3:C4)"],  # B2 is empty: B reaches past; C is its numbers'
    ]
    (found,) = shorts(sheet_context(grid))
    assert (found.cell, found.left_out, found.below, found.lead, found.trail) == (
        (5, 1),
        0,
        0,
        1,
        0,
    )
    assert (found.fix, found.empty) == ("=SUM(B3:B4)", ["B2"])


def test_holes_take_time_in_proportion_to_the_cells():
    # columns A:B of typed numbers, N rows long, beside a short column of formulas with a typed
    # hole: each run is read once (reading the whole run once per typed cell took 1,000 s on
    # a sheet of 20,000 rows), so 8 times the rows take about 8 times as long (up to 16 here,
    # with the allocator's and collector's share), not 64
    def grid(n):
        rows = [[i, 2 * i, f"=A{i + 1}+B{i + 1}" if i < 5 else None] for i in range(n)]
        rows[2][2] = 6
        return sheet_context(rows)

    def seconds(sc):
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            found = holes(sc)
            best = min(best, time.perf_counter() - start)
        assert [(h.cell, h.fix, h.hole) for h in found if h.run.axis == 0] == [
            ((2, 2), "=A3+B3", True)
        ]
        return best

    small, large = grid(1000), grid(8000)
    assert seconds(large) < 32 * seconds(small)
