"""Reading .xlsx: values, formulas with cached values, styles, merges, hidden rows, real files."""

from __future__ import annotations

import datetime as dt
import warnings

import openpyxl
import pytest
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.worksheet.formula import ArrayFormula

from fortap.errors import SheetError
from fortap.sheet import Cell, CellStyle, ReadLimits, Region, read_workbook

from .sheet_builders import SHEET1, rewrite_member, with_cached


def test_constant_values_and_kinds(save_book):
    def fill(ws):
        ws.title = "Data"
        ws["A1"] = "Revenue"
        ws["B1"] = 12
        ws["C1"] = 2.5
        ws["A2"] = True
        ws["B2"] = dt.datetime(2020, 3, 1)
        ws["C2"] = dt.datetime(2020, 3, 1, 14, 30)
        ws["A3"] = "#DIV/0!"
        ws["A3"].data_type = "e"

    book = read_workbook(save_book(fill))
    (sheet,) = book.sheets
    assert (sheet.name, sheet.n_rows, sheet.n_cols) == ("Data", 3, 3)
    assert sheet.cell(0, 0) == Cell("Revenue", "text")
    assert sheet.cell(0, 1) == Cell(12.0, "number")
    assert sheet.cell(0, 2) == Cell(2.5, "number")
    assert sheet.cell(1, 0) == Cell(True, "bool")
    assert (sheet.cell(1, 1).value, sheet.cell(1, 1).kind) == ("2020-03-01", "date")
    assert sheet.cell(1, 2).value == "2020-03-01T14:30:00"
    assert sheet.cell(2, 0) == Cell("#DIV/0!", "error")
    assert sheet.cell(2, 2).is_empty
    assert book.converted_from is None and book.skipped_sheets == ()


def test_formula_text_and_cached_values(save_book):
    def fill(ws):
        ws["A1"], ws["A2"] = 3, 4
        ws["B1"] = "=A1*2"
        ws["B2"] = '=IF(A2>3,"big","small")'
        ws["B3"] = "=A1>A2"
        ws["B4"] = "=A1/0"
        ws["B5"] = "=SUM(A1:A2)"  # never calculated: no cached value

    path = save_book(fill)
    with_cached(
        path, {"B1": ("6", None), "B2": ("big", "str"), "B3": ("0", "b"), "B4": ("#DIV/0!", "e")}
    )
    sheet = read_workbook(path).sheets[0]
    assert sheet.cell(0, 1) == Cell(6.0, "number", formula="=A1*2")
    assert sheet.cell(1, 1) == Cell("big", "text", formula='=IF(A2>3,"big","small")')
    assert sheet.cell(2, 1) == Cell(False, "bool", formula="=A1>A2")
    assert sheet.cell(3, 1) == Cell("#DIV/0!", "error", formula="=A1/0")
    assert sheet.cell(4, 1) == Cell(None, "empty", formula="=SUM(A1:A2)")
    assert [(r, c) for r, c, _ in sorted(sheet.formula_cells())] == [(i, 1) for i in range(5)]


def test_cached_date_of_a_formula_cell(save_book):
    def fill(ws):
        ws["A1"] = dt.datetime(2021, 1, 31)
        ws["B1"] = "=A1+1"
        ws["B1"].number_format = "yyyy-mm-dd"

    path = save_book(fill)
    with_cached(path, {"B1": ("44228", None)})
    assert read_workbook(path).sheets[0].cell(0, 1) == Cell(
        "2021-02-01", "date", formula="=A1+1", style=CellStyle(number_format="yyyy-mm-dd")
    )


def test_shared_formulas_are_expanded(save_book):
    def fill(ws):
        for r in range(1, 4):
            ws.cell(r, 1, r)
        ws["B1"] = "=A1*2"

    path = save_book(fill)

    def share(xml: str) -> str:
        xml = xml.replace("<f>A1*2</f>", '<f t="shared" ref="B1:B3" si="0">A1*2</f>')
        extra = '<c r="B{r}"><f t="shared" si="0"/><v>{v}</v></c>'
        for r in (2, 3):
            xml = xml.replace(
                f'<c r="A{r}" t="n"><v>{r}</v></c>',
                f'<c r="A{r}" t="n"><v>{r}</v></c>' + extra.format(r=r, v=2 * r),
            )
        return xml

    rewrite_member(path, SHEET1, share)
    sheet = read_workbook(path).sheets[0]
    assert [sheet.cell(r, 1).formula for r in range(3)] == ["=A1*2", "=A2*2", "=A3*2"]
    assert sheet.cell(2, 1).value == 6.0


def test_array_formula_is_flagged(save_book):
    def fill(ws):
        ws["A1"], ws["A2"] = 1, 2
        ws["B1"] = ArrayFormula("B1:B2", "=A1:A2*10")

    sheet = read_workbook(save_book(fill)).sheets[0]
    cell = sheet.cell(0, 1)
    assert (cell.formula, cell.array_formula) == ("=A1:A2*10", True)
    assert sheet.cell(0, 0).array_formula is False


def test_styles(save_book):
    def fill(ws):
        ws["A1"] = "Total"
        ws["A1"].font = Font(bold=True, italic=True, color="FFFF0000")
        ws["A1"].fill = PatternFill("solid", fgColor="FF00FF00")
        ws["A1"].border = Border(top=Side("thin"), bottom=Side("double"))
        ws["A1"].alignment = Alignment(horizontal="right", indent=2)
        ws["B1"] = 0.25
        ws["B1"].number_format = "0.00%"
        ws["C1"] = "themed"
        ws["C1"].font = Font(color=openpyxl.styles.colors.Color(theme=1))
        ws["A2"] = "note"
        ws["C2"].fill = PatternFill("solid", fgColor="FF0000FF")  # styled but empty
        ws["E9"].border = Border(left=Side("thin"))  # styled, empty, outside the values: dropped

    sheet = read_workbook(save_book(fill)).sheets[0]
    assert sheet.cell(0, 0).style == CellStyle(
        bold=True,
        italic=True,
        font_color="FFFF0000",
        fill_color="FF00FF00",
        border_top=True,
        border_bottom=True,
        h_align="right",
        indent=2,
    )
    assert sheet.cell(0, 1).style == CellStyle(number_format="0.00%")
    assert sheet.cell(0, 2).style.font_color is None
    assert sheet.cell(1, 2) == Cell(style=CellStyle(fill_color="FF0000FF"))
    assert sheet.cell(1, 2).is_empty
    assert (sheet.n_rows, sheet.n_cols) == (2, 3)
    assert sorted(sheet.cells) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2)]


def test_merged_regions_and_hidden_rows_and_columns(save_book):
    def fill(ws):
        for r in range(1, 6):
            for c in range(1, 5):
                ws.cell(r, c, r * c)
        ws.merge_cells("A1:B2")
        ws.merge_cells("C4:D5")
        ws.row_dimensions[3].hidden = True
        ws.column_dimensions["D"].hidden = True

    sheet = read_workbook(save_book(fill)).sheets[0]
    assert sheet.merged == (Region(0, 0, 1, 1), Region(3, 2, 4, 3))
    assert sheet.hidden_rows == frozenset({2})
    assert sheet.hidden_cols == frozenset({3})
    assert sheet.cell(1, 1).is_empty  # openpyxl keeps only the top-left value of a merge


def test_chartsheet_is_skipped(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = 1
    wb.create_chartsheet("Chart1")
    path = tmp_path / "chart.xlsx"
    wb.save(path)
    book = read_workbook(path)
    assert [s.name for s in book.sheets] == ["Sheet"]
    assert book.skipped_sheets == (("Chart1", "chartsheet"),)


def test_sheet_over_the_cell_limit_names_the_sheet(save_book):
    def fill(ws):
        ws.title = "Big"
        for r in range(1, 5):
            ws.cell(r, 1, r)

    with pytest.raises(SheetError) as err:
        read_workbook(save_book(fill), ReadLimits(max_cells=3))
    assert err.value.reason == "sheet_too_large"
    assert err.value.sheet == "Big"
    assert str(err.value) == (
        "sheet 'Big' is too large: more than 3 cells, the configured limit (Big of book.xlsx)"
    )


def test_sheet_over_the_row_limit(save_book):
    with pytest.raises(SheetError) as err:
        read_workbook(save_book(lambda ws: ws.cell(10, 1, 1)), ReadLimits(max_rows=9))
    assert err.value.reason == "sheet_too_large"
    assert "row 10 is past the limit of 9 rows" in str(err.value)


@pytest.mark.slow
def test_real_workbooks_match_a_bare_openpyxl_count(data_dir):
    """Formula cells (shared ones expanded) and values agree with openpyxl on real EUSES books."""
    for name in ("01sumdat.xlsx", "1999%20PWR%20Effluent-DRAFT.xlsx"):
        path = data_dir / "euses_excelint" / "subjects_xlsx" / name
        book = read_workbook(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            formulas = openpyxl.load_workbook(path)
            values = openpyxl.load_workbook(path, data_only=True)
        for sheet in book.sheets:
            ws, ws_values = formulas[sheet.name], values[sheet.name]
            expected = {k for k, c in ws._cells.items() if c.data_type == "f"}
            assert {(r + 1, c + 1) for r, c, _ in sheet.formula_cells()} == expected
            for r, c in sorted(expected)[:200]:
                cached = ws_values.cell(r, c).value
                got = sheet.cell(r - 1, c - 1)
                if isinstance(cached, int | float) and not isinstance(cached, bool):
                    assert got.value == pytest.approx(cached), (sheet.name, r, c)
                elif isinstance(cached, str):
                    assert got.value == cached, (sheet.name, r, c)
