"""Previews of array formulas and structured references on a literal workbook
(`tests/sheet/array_books.py`)."""

from __future__ import annotations

import pytest

from fortap.sheet.read import read_workbook
from fortap.suggest.preview import Previewer
from fortap.suggest.preview_array import NO_ARRAY_ENGINE, ArrayPreviews, formulon_installed
from tests.sheet.array_books import SALES, array_book, by_label, expected

needs_formulon = pytest.mark.skipif(not formulon_installed(), reason="fortap[arrays] missing")


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return read_workbook(array_book(tmp_path_factory.mktemp("arrays")))


@pytest.fixture(scope="module")
def previewer(book):
    return Previewer.load(book)


def test_a_copy_of_an_array_formula_is_one(book):
    arrays = ArrayPreviews(book, engine="formualizer")
    assert arrays.holds("Data", 8, 6, by_label(8))  # F7's formula filled down to F8
    assert arrays.holds("Data", 9, 4, "=C9:C16*2")  # D5's, copied four rows down
    assert not arrays.holds("Data", 8, 6, "=SUM(C5:C12)")
    assert not arrays.holds("Data", 8, 6, "=SUM(")


@needs_formulon
def test_row_of_a_range_inside_an_array_formula_is_an_array(previewer):
    assert previewer.arrays.engine == "formulon"
    shown = previewer.preview("Data", 8, 6, by_label(8))  # E8 = "b": rows 6 and 9
    assert (shown.value, shown.error, shown.route, shown.note) == (96.0, None, "formulon", None)
    assert expected("b") == 6 * 7 + 9 * 6 == 96


@needs_formulon
def test_an_array_formula_reads_hidden_cells_as_empty(previewer):
    shown = previewer.preview("Data", 8, 6, by_label(8), hidden=frozenset({("Data", 5, 2)}))
    assert shown.value == 9 * 6  # C6 (7, row 6) hidden
    again = previewer.preview("Data", 8, 6, by_label(8))
    assert again.value == 96.0  # and put back


def test_without_formulon_the_preview_says_it_lacks_array_semantics(book):
    previewer = Previewer.load(book)
    previewer.arrays = ArrayPreviews(book, engine="formualizer")
    shown = previewer.preview("Data", 8, 6, by_label(8))
    assert shown.route == "cells" and shown.note == NO_ARRAY_ENGINE
    assert shown.value != expected("b")  # formualizer reads ROW($C$5:$C$12) as one row


def test_a_formula_that_is_no_array_formula_is_previewed_as_before(previewer):
    shown = previewer.preview("Data", 8, 6, "=SUM(C5:C12)")
    assert (shown.value, shown.route, shown.note) == (40.0, "cells", None)


@pytest.mark.parametrize(
    ("cell", "formula", "value"),
    [
        ((5, 4), "=Sales[[#This Row],[Qty]]*Sales[[#This Row],[Price]]", 5.0 * 2.0),
        ((5, 4), "=[@Qty]*[@Price]", 5.0 * 2.0),
        ((2, 6), "=SUM(Sales[Qty])", float(sum(q for _, q, _ in SALES))),
        ((2, 6), '=SUMIF(Sales[Region],"East",Sales[Qty])', 7.0),
        ((2, 6), "=Sales[[#Totals],[Qty]]", 12.0),
        ((2, 6), "=SUM(Sales[Total])", 2 * 3.5 + 4 * 1.25 + 5 * 2.0),
    ],
)
def test_a_structured_reference_previews_its_value(previewer, cell, formula, value):
    shown = previewer.preview("Sales", *cell, formula)
    assert (shown.value, shown.error) == (value, None)


def test_another_sheet_reads_a_table_by_name(previewer):
    shown = previewer.preview("Data", 2, 8, "=MAX(Sales[[Qty]:[Price]])")
    assert (shown.value, shown.error) == (10.0, None)


@needs_formulon
def test_over_the_copy_limit_formualizer_previews_it_with_a_note(previewer, monkeypatch):
    monkeypatch.setattr("fortap.suggest.preview_array.MAX_ARRAY_CELLS", 10)  # it reads 24
    shown = previewer.preview("Data", 8, 6, by_label(8))
    assert (shown.route, shown.note, shown.array) == ("cells", NO_ARRAY_ENGINE, True)


def test_values_go_to_formulon_as_one_array_constant_per_run_of_a_column():
    from fortap.suggest.preview_array import _constant, _runs

    wanted = {(0, 1, 0): 1.0, (0, 2, 0): 'say "hi"', (0, 4, 0): True, (1, 1, 0): 2.5,
              (0, 3, 2): {"type": "Error", "kind": "Na"}, (0, 4, 2): {"type": "Error", "kind": "Circ"}}  # fmt: skip
    assert list(_runs(wanted)) == [
        (0, 1, 0, [1.0, 'say "hi"']),
        (0, 4, 0, [True]),
        (0, 3, 2, [{"type": "Error", "kind": "Na"}, {"type": "Error", "kind": "Circ"}]),
        (1, 1, 0, [2.5]),
    ]
    assert [_constant(v) for v in (1.0, 'say "hi"', True)] == ["1.0", '"say ""hi"""', "TRUE"]
    assert [_constant(wanted[p]) for p in ((0, 3, 2), (0, 4, 2))] == ["#N/A", "#VALUE!"]
