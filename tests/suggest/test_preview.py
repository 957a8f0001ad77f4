"""Value previews with formualizer: values, Excel errors, both routes, the cell restored."""

from __future__ import annotations

import pytest

from fortap.sheet.read import read_workbook
from fortap.suggest.calc_book import resolve_names
from fortap.suggest.preview import Preview, Previewer, to_preview
from fortap.suggest.preview_boxes import plain_boxes

from .engine_books import sales_book


@pytest.fixture(scope="module")
def previewer(tmp_path_factory):
    path = sales_book(tmp_path_factory.mktemp("preview") / "sales.xlsx")
    return Previewer.load(read_workbook(path))


def test_sum_of_numbers_above(previewer):
    assert previewer.preview("Sales", 6, 2, "=SUM(B2:B5)") == Preview(350.0, None, "cells")


def test_reads_values_of_formulas_the_file_never_cached(previewer):
    # openpyxl writes no cached values: D2:D5 (=B+C) hold values only once formualizer computed
    assert previewer.preview("Sales", 6, 4, "=SUM(D2:D5)") == Preview(795.0, None, "cells")


def test_division_by_zero_is_an_error_value(previewer):
    # B5 is 0: the candidate itself divides by zero, so the error is its own
    shown = previewer.preview("Sales", 6, 5, "=C5/B5-1")
    assert shown == Preview(None, "#DIV/0!", "cells", own_error=True)


def test_reference_to_a_missing_sheet_is_ref_error(previewer):
    shown = previewer.preview("Sales", 6, 2, "=Nope!B2*2")
    assert shown == Preview(None, "#REF!", "cells", own_error=True)


def test_other_sheet_quoted(previewer):
    got = previewer.preview("Sales", 6, 2, "='My Sheet'!B2+B2")
    assert got == Preview(1020.0, None, "cells")


def test_a_formula_reading_its_own_cell_is_circular(previewer):
    assert previewer.preview("Sales", 6, 2, "=SUM(B2:B6)").error == "#CIRC!"


def test_text_result(previewer):
    assert previewer.preview("Sales", 6, 2, '=A2&"!"') == Preview("North!", None, "cells")


def test_dynamic_reference_goes_through_the_engine_and_restores_the_cell(previewer):
    assert previewer.preview("Sales", 3, 4, '=INDIRECT("B2")*2') == Preview(240.0, None, "engine")
    # the cell's own formula is back, with its value
    assert previewer.engine.get_formula("Sales", 3, 4).replace(" ", "") == "=B3+C3"
    assert previewer.value("Sales", 3, 4) == Preview(175.0, None, "engine")
    # an empty cell stays empty
    assert previewer.preview("Sales", 6, 2, "=OFFSET(B2,1,0)") == Preview(80.0, None, "engine")
    assert previewer.value("Sales", 6, 2) == Preview(None, None, "engine")


def test_forced_engine_route_agrees_with_the_cells_route(previewer):
    for formula in ("=SUM(B2:C5)", "=C5/B5-1", "=AVERAGE(D2:D5)"):
        cells = previewer.preview("Sales", 6, 4, formula)
        engine = previewer.preview("Sales", 6, 4, formula, route="engine")
        assert (cells.value, cells.error) == (engine.value, engine.error)


def test_plain_boxes():
    assert plain_boxes("=SUM(A1:B3)+'My Sheet'!$C$5", "S") == [
        ("S", 1, 1, 3, 2),
        ("My Sheet", 5, 3, 5, 3),
    ]
    assert plain_boxes("=SUM(A:A)", "S") is None  # whole column: the engine's job
    assert plain_boxes("=Rate*2", "S", frozenset({"rate"})) is None  # a name the engine knows
    assert plain_boxes("=Rate*2", "S") == []  # unknown: the scratch engine says #NAME? at once
    assert plain_boxes("=SUM(T[Cost])", "S", frozenset({"t"})) is None
    assert plain_boxes("=SUM(T[Cost])", "S") == []
    assert plain_boxes("=OFFSET(A1,1,1)", "S") is None


def test_to_preview_conversions():
    assert to_preview({"type": "Error", "kind": "Na"}, "cells") == Preview(None, "#N/A", "cells")
    assert to_preview(3, "cells") == Preview(3.0, None, "cells")
    assert to_preview([[7.0, 8.0]], "cells") == Preview(7.0, None, "cells")
    assert to_preview(True, "cells") == Preview(True, None, "cells")


def test_csv_is_built_from_values(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,0\n")
    prev = Previewer.load(read_workbook(path))
    sheet = prev.book.sheets[0].name
    assert prev.preview(sheet, 4, 2, "=SUM(B2:B3)") == Preview(2.0, None, "cells")
    assert prev.preview(sheet, 4, 2, "=A3/B3") == Preview(None, "#DIV/0!", "cells", own_error=True)


def test_accepted_formula_updates_values(tmp_path):
    prev = Previewer.load(read_workbook(sales_book(tmp_path / "s.xlsx")))
    prev.set_formula("Sales", 6, 2, "=SUM(B2:B5)")
    assert prev.value("Sales", 6, 2) == Preview(350.0, None, "engine")
    assert prev.preview("Sales", 7, 2, "=B6*2") == Preview(700.0, None, "cells")


def test_defined_names_are_replaced_by_their_cells(tmp_path):
    from openpyxl import load_workbook
    from openpyxl.workbook.defined_name import DefinedName

    path = sales_book(tmp_path / "named.xlsx")
    wb = load_workbook(path)
    wb.defined_names["Spring"] = DefinedName("Spring", attr_text="Sales!$B$2:$B$5")
    wb.defined_names["Rent"] = DefinedName("Rent", attr_text="'My Sheet'!$B$2")
    wb.defined_names["Rate"] = DefinedName("Rate", attr_text="0.5")
    wb.save(path)
    prev = Previewer.load(read_workbook(path))
    assert resolve_names("=SUM(spring)+rent+B2", "Sales", prev._defined) == (
        "=SUM(Sales!$B$2:$B$5)+'My Sheet'!$B$2+B2"
    )
    assert prev.preview("Sales", 6, 2, "=SUM(Spring)+Rent") == Preview(1250.0, None, "cells")
    assert prev.preview("Sales", 6, 2, "=SUM(Spring)+Rent", route="engine") == Preview(
        1250.0, None, "engine"
    )
    # a name nothing defines: the candidate's own error
    missing = prev.preview("Sales", 6, 2, '="Spring"&Missing')
    assert missing == Preview(None, "#NAME?", "cells", own_error=True)
    # a name holding a constant is left to the loaded engine
    assert prev.preview("Sales", 6, 2, "=B2*Rate") == Preview(60.0, None, "engine")
