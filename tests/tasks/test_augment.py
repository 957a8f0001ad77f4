"""Augmentations keep the gold formula exactly right: after each one, on small literal tables,
the formula's references read the same values (re-evaluated, and cell by cell), and the built
example's pointers land on cells holding them."""

from __future__ import annotations

import math
import random

import pytest

from fortap.encoding.selection import select_cells
from fortap.formula import parse_formula
from fortap.formula.nodes import Const, Func, Op, Ref, walk
from fortap.formula.references import ref_box
from fortap.formula.table_formulas import parse_table_formulas
from fortap.sheet.model import Cell, Region
from fortap.table.model import Table
from fortap.tasks.formula_prediction.augment import (
    Target,
    perturb_numbers,
    perturbed,
    swap_synonyms,
)
from fortap.tasks.formula_prediction.examples import (
    FP_KEY,
    FormulaExamplesConfig,
    prediction_example,
)
from fortap.tasks.formula_prediction.move_lines import (
    insert_blank,
    insert_lines,
    movable,
    transpose,
)
from fortap.tasks.formula_prediction.synonyms import GROUPS, keep_case, swap_words

from .sales_table import LEFT, TOP, num, sales_table, text


def targets(table: Table) -> list[Target]:
    parsed = parse_table_formulas(table)
    return [Target(table, rc, f) for rc, f in sorted(parsed.items()) if f is not None]


# --- a small evaluator: what the formula reads, and what it computes ---------------------------


def cell_at(table: Table, sheet_rc: tuple[int, int]) -> Cell:
    r, c = sheet_rc[0] - table.region.top, sheet_rc[1] - table.region.left
    assert 0 <= r < table.n_rows and 0 <= c < table.n_cols, "a reference left the table"
    return table.cells[r][c]


def read(table: Table, ref: Ref) -> list:
    """The values of the non-empty cells a reference covers, row by row."""
    top, left, bottom, right = ref_box(ref)
    cells = [cell_at(table, (r, c)) for r in range(top, bottom + 1) for c in range(left, right + 1)]
    return [cell.value for cell in cells if not cell.is_empty]


def evaluate(node, table: Table):
    """The value of a formula over the table's cached values (the functions used here)."""
    if isinstance(node, Const):
        return float(node.value)
    if isinstance(node, Ref):
        values = read(table, node)
        return values if node.end is not None else (values[0] if values else 0.0)
    args = [evaluate(a, table) for a in node.args]
    if isinstance(node, Op):
        if node.op == "u-":
            return -args[0]
        a, b = args
        return {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[node.op]
    assert isinstance(node, Func)
    flat = [v for a in args for v in (a if isinstance(a, list) else [a])]
    if node.name == "ROUND":
        return round(args[0], int(args[1]))
    return {"SUM": sum, "MAX": max, "MIN": min,
            "AVERAGE": lambda v: sum(v) / len(v)}[node.name](flat)  # fmt: skip


def refs(target: Target) -> list[Ref]:
    return [n for n in walk(target.formula.ast) if isinstance(n, Ref)]


def same_reading(before: Target, after: Target) -> None:
    """The gold formula reads the same values, reference by reference, and computes the same."""
    assert after.formula.sketch == before.formula.sketch
    assert [read(after.table, r) for r in refs(after)] == [
        read(before.table, r) for r in refs(before)
    ]
    assert evaluate(after.formula.ast, after.table) == pytest.approx(
        evaluate(before.formula.ast, before.table)
    )
    assert after.table.cells[after.rc[0]][after.rc[1]].formula == after.formula.text


def pointed_values(target: Target, tokenizer) -> list:
    """The values of the cells the built example's pointers name, in slot order ("out" for a
    reference end the paper's input does not show: off the target's row and column)."""
    cfg = FormulaExamplesConfig()
    example = prediction_example(target.table, target.rc, target.formula, tokenizer, cfg)
    assert example is not None
    out = []
    for p in example.targets[FP_KEY]["pointers"]:
        if p > 0:
            r, c = example.cell_coords[p - 1]
            out.append(target.table.cells[r][c].value)
        elif p == -1:
            out.append("out")
    return out


def header_texts(table: Table) -> tuple[list, list]:
    return tuple(
        [table.cells[n.row][n.col].value for n in root.walk() if n.row >= 0]
        for root in (table.top_root, table.left_root)
    )


# --- insertion ---------------------------------------------------------------------------------


def test_an_inserted_row_moves_the_references_below_and_grows_the_range_across():
    total = next(t for t in targets(sales_table()) if t.rc == (4, 3))  # =SUM($C$4:$D$6)
    moved = insert_lines(total, "row", 2)  # before table row 2 (sheet row 5)
    assert moved.formula.text == "=SUM($C$4:$D$7)" and moved.rc == (5, 3)
    assert moved.table.n_rows == 7 and all(c.is_empty for c in moved.table.cells[2])
    column = insert_lines(total, "col", 2)  # before table column 2 (sheet column D)
    assert column.formula.text == "=SUM($C$4:$E$6)" and column.rc == (4, 4)
    assert column.table.merged == (Region(0, 1, 0, 3),)  # the merged header over Q1:Q2 grows
    same_reading(total, moved)
    same_reading(total, column)


@pytest.mark.parametrize("seed", range(25))
def test_insert_blank_keeps_every_gold_formula_right(seed, tokenizer):
    for target in targets(sales_table()):
        new = insert_blank(target, random.Random(seed))
        assert new is not None
        same_reading(target, new)
        assert pointed_values(new, tokenizer) == pointed_values(target, tokenizer)
        assert header_texts(new.table) == header_texts(target.table)
        added = new.table.n_rows - target.table.n_rows + new.table.n_cols - target.table.n_cols
        assert 1 <= added <= 4
        kept = [c for row in new.table.cells for c in row if not c.is_empty]
        assert len(kept) == sum(not c.is_empty for row in target.table.cells for c in row)
        assert new.table.cells[0][0].value == "Region"  # nothing before the first row/column


# --- transposition -----------------------------------------------------------------------------


@pytest.mark.parametrize("target", targets(sales_table()), ids=lambda t: t.formula.text)
def test_transpose_keeps_the_gold_formula_right_and_twice_is_the_start(target, tokenizer):
    flipped = transpose(target)
    assert flipped is not None
    table = flipped.table
    assert (table.n_rows, table.n_cols) == (5, 6) and flipped.rc == target.rc[::-1]
    assert all(table.cells[c][r] == target.table.cells[r][c] for r in range(6) for c in range(5)
               if (r, c) != target.rc)  # fmt: skip
    assert (table.top_header_rows, table.left_header_cols) == (1, 1)
    assert header_texts(table) == header_texts(target.table)[::-1]  # the trees swapped
    assert table.merged == (Region(1, 0, 2, 0),)
    # the values a reference reads, column by column now: the same set of cells
    for before, after in zip(refs(target), refs(flipped), strict=True):
        assert sorted(read(table, after)) == sorted(read(target.table, before))
    assert evaluate(flipped.formula.ast, table) == pytest.approx(
        evaluate(target.formula.ast, target.table)
    )
    assert sorted(pointed_values(flipped, tokenizer)) == sorted(pointed_values(target, tokenizer))
    back = transpose(flipped)
    assert back.table == target.table and back.formula.text == target.formula.text


# --- formulas that read positions are left alone ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["=OFFSET(C4,1,0)", "=VLOOKUP(B4,B4:D6,2)", "=COUNTIF(C4:C6,\"<>1\")", "=SUM(C:C)",
     "=Sheet2!C4+1", "=INDEX(C4:D6,2,1)", "=MyName*2", "=ROWS(C4:C6)"],
)  # fmt: skip
def test_formulas_that_read_positions_are_not_moved(text):
    table = sales_table()
    formula = parse_formula(text, "Sheet1", (TOP + 5, LEFT + 4))
    target = Target(table, (5, 4), formula)
    assert not movable(target)
    assert insert_blank(target, random.Random(0)) is None and transpose(target) is None


def test_a_same_sheet_qualifier_is_movable():
    formula = parse_formula("=Sheet1!D4*2", "Sheet1", (TOP + 5, LEFT + 4))
    new = transpose(Target(sales_table(), (5, 4), formula))
    assert new is not None and new.formula.text == "=Sheet1!C5*2"


# --- synonyms ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
def test_synonyms_change_the_words_and_nothing_the_formula_reads(seed, tokenizer):
    for target in targets(sales_table()):
        new = swap_synonyms(target, random.Random(seed))
        assert new is not None and new.formula is target.formula and new.rc == target.rc
        shown = set(select_cells(target.table, target.rc))
        for r, row in enumerate(new.table.cells):
            for c, cell in enumerate(row):
                assert cell == target.table.cells[r][c] or (r, c) in shown
        same_reading(target, new)
        assert pointed_values(new, tokenizer) == pointed_values(target, tokenizer)
        cells = new.table.cells
        assert cells[0][3].value in ("Sum", "Overall", "Grand total")  # Total
        assert cells[0][4].value in ("Difference", "Delta", "Diff")  # Change
        assert cells[0][1].value in ("Quarter 1", "1st quarter")  # Q1
        assert cells[4][0].value in ("sum", "overall", "grand total")  # total, lower case kept
        assert cells[5][0].value in ("MEAN", "AVERAGE")  # AVG, upper case kept
        assert [c.value for c in (cells[1][0], cells[2][0])] == ["North", "South"]


def test_swap_words_matches_whole_words_in_any_case_and_keeps_it():
    rng = random.Random(3)
    assert swap_words("Totally subtotal", rng) in ("Totally sub-total", "Totally sub total")
    assert swap_words("Growth 10%", rng) == "Growth 10%"  # a number's percent sign stays
    assert swap_words("% of budget", rng).endswith(" of plan")
    assert keep_case("FY", "Year") == "YEAR" and keep_case("year", "FY") == "FY"
    assert keep_case("q1", "Quarter 1") == "quarter 1" and keep_case("Q1", "1st quarter") == (
        "1st quarter"
    )
    assert swap_words("no listed words", rng) == "no listed words"
    for group in GROUPS:  # every spelling swaps to another of its group
        for form in group:
            assert swap_words(form, rng).lower() in {f.lower() for f in group if f != form}


# --- numbers -----------------------------------------------------------------------------------


def decade(x: float) -> int:
    return math.floor(math.log10(abs(x)))


@pytest.mark.parametrize("seed", range(20))
def test_perturbed_numbers_keep_sign_decade_and_integer_ness(seed):
    rng = random.Random(seed)
    values = [1.0, 9.0, 10.0, 99.0, -250.0, 123456.0, 0.5, 0.25, -7.5, 0.0125, 3.14159, 0.999]
    for value in values:
        for factor in (rng.uniform(0.5, 2.0), 0.5, 2.0, rng.uniform(0.75, 1.25)):
            new = perturbed(value, factor)
            assert math.copysign(1, new) == math.copysign(1, value)
            assert decade(new) == decade(value), (value, factor, new)
            assert float(new).is_integer() == float(value).is_integer(), (value, factor, new)
            assert len(repr(new).split(".")[1]) <= max(len(repr(value).split(".")[1]), 1)


@pytest.mark.parametrize("seed", range(20))
def test_numbers_change_the_data_region_only_and_the_formula_reads_the_same_kinds(seed, tokenizer):
    moved = 0
    for target in targets(sales_table()):
        new = perturb_numbers(target, random.Random(seed))
        if new is None:  # no shown number moved (a factor near 1 on small integers)
            continue
        moved += 1
        assert new.formula is target.formula
        old_cells, new_cells = target.table.cells, new.table.cells
        assert new_cells[0] == old_cells[0] and [r[0] for r in new_cells] == [
            r[0] for r in old_cells
        ]
        assert new_cells[target.rc[0]][target.rc[1]] == old_cells[target.rc[0]][target.rc[1]]
        changed = {
            (r, c)
            for r, (ra, rb) in enumerate(zip(old_cells, new_cells, strict=True))
            for c, (a, b) in enumerate(zip(ra, rb, strict=True))
            if a != b
        }
        assert changed and changed <= set(select_cells(target.table, target.rc))
        for before, after in zip(refs(target), refs(new), strict=True):
            for a, b in zip(read(target.table, before), read(new.table, after), strict=True):
                assert (decade(a), a > 0, float(a).is_integer()) == (
                    decade(b), b > 0, float(b).is_integer()
                )  # fmt: skip
        assert len(pointed_values(new, tokenizer)) == len(pointed_values(target, tokenizer))
    assert moved >= len(targets(sales_table())) // 2


def test_year_like_integers_and_zeros_stay():
    table = sales_table()
    cells = list(map(list, table.cells))
    cells[1][1], cells[1][2] = num(2019.0), num(0.0)
    table = Table(**{**table.__dict__, "cells": tuple(map(tuple, cells))})
    new = perturb_numbers(Target(table, (1, 3), targets(table)[0].formula), random.Random(0))
    assert new.table.cells[1][1].value == 2019.0 and new.table.cells[1][2].value == 0.0


def test_no_words_and_no_numbers_mean_not_applicable():
    table = Table(book="b.xlsx", sheet="S", region=Region(0, 0, 0, 1),
                  cells=((text("x"), num(3.0, "=SUM(A1:A1)")),))  # fmt: skip
    target = Target(table, (0, 1), parse_formula("=SUM(A1:A1)", "S", (0, 1)))
    assert swap_synonyms(target, random.Random(0)) is None
    assert perturb_numbers(target, random.Random(0)) is None
    assert insert_blank(target, random.Random(0)) is not None  # one column between A and B


def test_text_the_formula_reads_keeps_its_words():
    formula = parse_formula('=B7&" "&E3', "Sheet1", (TOP + 5, LEFT + 4))  # "total" and "Total"
    new = swap_synonyms(Target(sales_table(), (5, 4), formula), random.Random(0))
    cells = new.table.cells
    assert (cells[4][0].value, cells[0][3].value) == ("total", "Total")
    assert cells[0][1].value != "Q1" and cells[5][0].value != "AVG"  # the others change
