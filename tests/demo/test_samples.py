"""The sample workbooks: they open, carry formulas with cached values, and look like real sheets."""

from __future__ import annotations

import re

import openpyxl
import pytest

from fortap.demo.samples import BOOKS, SamplesConfig, write_samples

SUM_OF_RANGE = re.compile(r"^=SUM\(([A-Z]+\d+:[A-Z]+\d+)\)$")


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    """Every sample book opened twice by openpyxl: formulas, and cached values."""
    paths = write_samples(tmp_path_factory.mktemp("books"))
    return {
        p.stem: (openpyxl.load_workbook(p), openpyxl.load_workbook(p, data_only=True))
        for p in paths
    }


def formula_cells(book):
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    yield ws.title, cell


def test_writes_every_book_in_order(tmp_path):
    paths = write_samples(tmp_path / "out", SamplesConfig(books=("loan", "budget")))
    assert [p.name for p in paths] == ["loan.xlsx", "budget.xlsx"]
    assert len(BOOKS) == 8


def test_every_formula_has_a_cached_value(books):
    for name, (formulas, values) in books.items():
        cells = list(formula_cells(formulas))
        assert len(cells) >= 10, name
        for sheet, cell in cells:
            cached = values[sheet][cell.coordinate].value
            assert cached is not None, f"{name} {sheet}!{cell.coordinate} {cell.value}"
            assert not str(cached).startswith("#"), f"{name} {sheet}!{cell.coordinate} = {cached}"


def test_budget_values_by_hand(books):
    formulas, values = books["budget"]
    ws, v = formulas["FY2024 Budget"], values["FY2024 Budget"]
    assert ws["B10"].value == "=SUM(B7:B9)"
    assert v["B10"].value == v["B7"].value + v["B8"].value + v["B9"].value
    assert ws["F7"].value == "=E7-C7"
    assert v["F7"].value == v["E7"].value - v["C7"].value
    assert ws["H7"].value == "=E7/$E$22"
    assert v["H7"].value == pytest.approx(v["E7"].value / v["E22"].value)
    assert v["H22"].value == 1
    assert v["I7"].value == ("Over budget" if v["E7"].value > v["D7"].value else "Within budget")


def test_every_sum_of_a_range_matches_its_cells(books):
    """An independent check of the engine's cached values on every `=SUM(range)` formula."""
    checked = 0
    for name, (formulas, values) in books.items():
        for sheet, cell in formula_cells(formulas):
            match = SUM_OF_RANGE.match(cell.value)
            if not match:
                continue
            parts = [c.value for row in values[sheet][match.group(1)] for c in row]
            expected = sum(x for x in parts if isinstance(x, int | float))
            assert values[sheet][cell.coordinate].value == pytest.approx(expected), (
                f"{name} {sheet}!{cell.coordinate}"
            )
            checked += 1
    assert checked > 50


def test_formulas_people_write_are_all_there(books):
    texts = [cell.value for f, _ in books.values() for _, cell in formula_cells(f)]
    used = {fn for t in texts for fn in re.findall(r"([A-Z]+)\(", t)}
    assert {"SUM", "ROUND", "IF", "AVERAGE", "MAX", "MIN", "SUMIF", "COUNTIF", "PMT"} <= used
    assert any("$" in t for t in texts)  # anchored references
    assert any("!" in t for t in texts)  # a reference to another sheet
    assert any(re.fullmatch(r"=[A-Z]+\d+/[A-Z]+\d+-1", t) for t in texts)  # growth ratio


def test_layout_features(books):
    budget = books["budget"][0]["FY2024 Budget"]
    merged = {str(r) for r in budget.merged_cells.ranges}
    assert {"B4:C4", "D4:E4", "A4:A5"} <= merged  # year bands over two header rows
    assert budget["A1"].font.b and budget["B4"].font.b
    assert budget["B4"].fill.fgColor.rgb == "FFD9E1F2"
    assert budget["A7"].alignment.indent == 1 and budget["A6"].font.b
    assert budget["B7"].number_format == "#,##0" and budget["G7"].number_format == "0.0%"
    assert budget["B22"].border.bottom.style == "double"
    assert "Source:" in budget["A25"].value  # a footnote under the table
    assert books["inventory"][0]["Stock"]["A7"].value.startswith("  ")  # space-indented label
    energy = {str(r) for r in books["energy"][0]["Electricity"].merged_cells.ranges}
    assert {"B3:O3", "B4:H4", "I4:O4"} <= energy  # three header levels
    assert books["expenses"][1]["Expense Report"]["A6"].is_date


def test_sheets_with_two_tables_have_empty_rows_between(books):
    for name, sheet in (
        ("budget", "Staffing"),
        ("expenses", "Expense Report"),
        ("inventory", "Suppliers"),
    ):
        ws = books[name][0][sheet]
        filled = sorted({c.row for row in ws.iter_rows() for c in row if c.value is not None})
        gaps = [b - a - 1 for a, b in zip(filled, filled[1:], strict=False) if b - a > 1]
        assert max(gaps) >= 2, (name, sheet)


def test_same_seed_same_bytes_other_seed_other_numbers(tmp_path):
    one = write_samples(tmp_path / "a", SamplesConfig(seed=7, books=("sales",)))[0]
    two = write_samples(tmp_path / "b", SamplesConfig(seed=7, books=("sales",)))[0]
    three = write_samples(tmp_path / "c", SamplesConfig(seed=8, books=("sales",)))[0]
    assert one.read_bytes() == two.read_bytes()
    a = openpyxl.load_workbook(one)["Sales by Region"]["B7"].value
    b = openpyxl.load_workbook(three)["Sales by Region"]["B7"].value
    assert a != b


def test_config_rejects_unknown_and_repeated_books():
    with pytest.raises(ValueError, match="SamplesConfig.books: unknown"):
        SamplesConfig(books=("budget", "payroll"))
    with pytest.raises(ValueError, match="repeated"):
        SamplesConfig(books=("budget", "budget"))
