"""Excel tables and array formula ranges as the .xlsx reader keeps them."""

from __future__ import annotations

from openpyxl.worksheet.table import Table

from fortap.sheet.model import Region, TableDef
from fortap.sheet.read import read_workbook
from fortap.sheet.tables import table_def
from tests.sheet.array_books import array_book


def test_a_table_is_read_with_its_columns_header_and_totals_rows(tmp_path):
    book = read_workbook(array_book(tmp_path))
    sales = book.sheets[1]
    assert sales.tables == (
        TableDef("Sales", Region(0, 0, 5, 3), ("Region", "Qty", "Price", "Total"), 1, 1),
    )
    assert sales.tables[0].data_rows == (1, 4)
    assert book.sheets[0].tables == ()


def test_array_formulas_keep_their_ranges_and_their_flag(tmp_path):
    data = read_workbook(array_book(tmp_path)).sheets[0]
    assert data.arrays == (
        Region(4, 3, 11, 3),  # D5:D12, one formula over the column
        Region(4, 5, 4, 5),  # F5, F6, F7: one cell each
        Region(5, 5, 5, 5),
        Region(6, 5, 6, 5),
    )
    d5, d6 = data.cell(4, 3), data.cell(5, 3)
    assert (d5.formula, d5.array_formula) == ("=C5:C12*2", True)
    assert d6.formula is None  # the other cells of the range hold only their values
    assert data.cell(4, 5).formula == "=SUM(IF($B$5:$B$12=E5,ROW($C$5:$C$12)*$C$5:$C$12))"


def test_a_table_whose_columns_do_not_fit_its_range_is_dropped():
    table = Table(displayName="T", ref="A1:C4")
    table._initialise_columns()
    assert table_def(table) == TableDef("T", Region(0, 0, 3, 2), ("Column1", "Column2", "Column3"))
    table.tableColumns.pop()
    assert table_def(table) is None


def test_a_sheet_without_tables_has_none(save_book):
    path = save_book(lambda ws: ws.append([1, 2]))
    sheet = read_workbook(path).sheets[0]
    assert (sheet.tables, sheet.arrays) == ((), ())
