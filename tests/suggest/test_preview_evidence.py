"""Previews as evidence: which errors are a candidate's own, cached inputs where the engine
fails, "not computed" with its reason, dates only in date formats, panic text kept off stderr."""

from __future__ import annotations

import os

import pytest

from fortap.sheet.model import Cell, CellStyle, Sheet, Workbook
from fortap.suggest.calc_book import is_date_format, quiet_panics
from fortap.suggest.candidates.base import Candidate
from fortap.suggest.context import Target
from fortap.suggest.engine import Suggester
from fortap.suggest.preview import Preview, Previewer

DATE = CellStyle(number_format="yyyy-mm-dd")


def _book(cells: dict[str, Cell], path: str = "literal.csv") -> Workbook:
    """One sheet "S" holding `cells` by A1 address (columns A-J, rows 1-9); loaded into the
    engine from these cells (the .csv route), so cached values are exactly the ones given."""
    grid = {(int(a[1:]) - 1, ord(a[0]) - 65): cell for a, cell in cells.items()}
    return Workbook(path, (Sheet("S", path, 9, 10, grid),))


def _chain(cached: bool) -> Previewer:
    """A1 = B1 + 1 and B1 = A1 + 1 (a circular chain), C1 = 2; the file's cached values of
    the chain when `cached`."""
    return Previewer.load(_book({
        "A1": Cell(5.0 if cached else None, "number" if cached else "empty", "=B1+1"),
        "B1": Cell(4.0 if cached else None, "number" if cached else "empty", "=A1+1"),
        "C1": Cell(2.0, "number"),
    }))  # fmt: skip


def test_circular_chain_in_the_inputs_is_computed_from_cached_values():
    got = _chain(cached=True).preview("S", 1, 4, "=A1*C1")
    assert (got.value, got.error, got.own_error) == (10.0, None, False)
    assert "cached" in got.note


def test_circular_chain_without_cached_values_is_not_computed():
    got = _chain(cached=False).preview("S", 1, 4, "=A1*C1")
    assert got == Preview(None, None, "cells", "not computed: the cells it reads: a circular chain")
    assert not got.computed and not got.own_error


def test_a_formula_reading_its_own_cell_is_its_own_error():
    got = _chain(cached=True).preview("S", 1, 3, "=C1+1")
    assert (got.error, got.own_error) == ("#CIRC!", True)


@pytest.fixture(scope="module")
def sheet_with_errors() -> Previewer:
    return Previewer.load(_book({
        "A1": Cell("#VALUE!", "error"),  # an error the file holds (no formula)
        "A2": Cell(3.0, "number"),
        "B1": Cell(6.0, "number"),
        "D1": Cell(None, "empty", style=DATE),
        "E1": Cell(43831.0, "number", style=DATE),
        "E2": Cell(43831.0, "number"),
    }))  # fmt: skip


def test_cached_error_in_an_input_is_shown_but_not_the_candidates_own(sheet_with_errors):
    got = sheet_with_errors.preview("S", 3, 3, "=A1+A2")
    assert (got.value, got.error, got.own_error) == (None, "#VALUE!", False)
    assert got.note == "the cells it reads hold errors"


def test_division_by_an_empty_cell_is_the_candidates_own(sheet_with_errors):
    got = sheet_with_errors.preview("S", 3, 3, "=B1/C1")  # C1 is empty
    assert got == Preview(None, "#DIV/0!", "cells", own_error=True)


def test_an_error_the_formula_text_holds_is_the_workbooks(sheet_with_errors):
    # a broken reference copied from the workbook (`=#REF!*2`) is not the candidate's doing
    got = sheet_with_errors.preview("S", 3, 3, "=#REF!*A2")
    assert (got.error, got.own_error) == ("#REF!", False)
    assert "#REF!" in got.note


def test_a_number_is_a_date_only_in_a_date_format(sheet_with_errors):
    prev = sheet_with_errors
    assert prev.preview("S", 1, 4, "=E1").value == "2020-01-01"  # D1 has a date format
    assert prev.preview("S", 3, 3, "=E1").value == 43831.0  # C3: General
    assert prev.preview("S", 3, 3, "=E2").value == 43831.0
    assert prev.preview("S", 3, 3, "=DATE(2020,1,1)").value == 43831.0
    assert prev.preview("S", 3, 3, "=1").value == 1.0  # not 1900-01-01
    assert prev.preview("S", 1, 4, "=DATE(2020,1,1)+0.5").value == "2020-01-01T12:00:00"
    assert is_date_format("d-mmm") and is_date_format("[$-409]h:mm AM/PM")
    assert not is_date_format("General") and not is_date_format('0.00"m"')


def test_unsupported_function_is_not_computed_with_its_name(sheet_with_errors):
    got = sheet_with_errors.preview("S", 3, 3, "=CUBEVALUE(A2)")
    assert got == Preview(None, None, "cells", "not computed: the preview engine has no CUBEVALUE")
    assert not got.own_error


def test_external_link_is_not_computed(sheet_with_errors):
    got = sheet_with_errors.preview("S", 3, 3, "=[1]Sheet1!A1*2")
    assert got.note == "not computed: it reads another workbook (an external link)"
    assert (got.value, got.error, got.own_error) == (None, None, False)


def test_hidden_cells_read_as_empty(sheet_with_errors):
    got = sheet_with_errors.preview("S", 3, 3, "=B1+A2", hidden=frozenset({("S", 1, 0)}))
    assert got.value == 6.0


def test_panic_text_is_dropped_and_other_text_passed_on(capfd):
    with quiet_panics():
        os.write(2, b"thread '<unnamed>' panicked at src/eval.rs:1:1:\nboom\nnote: run with\n")
    with quiet_panics():
        os.write(2, b"a warning\n")
    err = capfd.readouterr().err
    assert "panicked" not in err and "boom" not in err
    assert "a warning" in err


class FixedRanker:
    """Ranks any candidates as the given formulas, in this order."""

    common = None

    def __init__(self, formulas: list[str]) -> None:
        self.formulas = formulas

    def rank(self, candidates):
        return [(Candidate(f, "test", "given", {}), -float(i)) for i, f in enumerate(self.formulas)]


def test_only_the_candidates_own_errors_move_it_down():
    book = _book({
        "A1": Cell("#N/A", "error"), "A2": Cell(3.0, "number"), "B1": Cell(6.0, "number"),
    })  # fmt: skip
    formulas = ["=B1/C1", "=A1+A2", "=CUBEVALUE(A2)", "=B1*2"]
    sug = Suggester(book.path, book, FixedRanker(formulas), Previewer.load(book))
    got = sug.ranking(Target("S", 2, 2), k=4)
    assert [s.formula for s in got.printed] == ["=A1+A2", "=CUBEVALUE(A2)", "=B1*2", "=B1/C1"]
    assert [c.formula for c, _ in got.ranked] == formulas  # the ranker's order is kept beside
    assert got.printed[0].error == "#N/A" and got.printed[0].note
    assert got.printed[1].note.startswith("not computed")
    assert got.printed[3].error == "#DIV/0!"
