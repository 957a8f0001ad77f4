"""The table-to-workbook writer: a literal HiTab table at A1 and a table placed at C4, read back
from the saved .xlsx with openpyxl; real HiTab tables keep every number and text."""

from __future__ import annotations

import datetime as dt
import io

import openpyxl

from fortap.sheet.model import Cell, Region
from fortap.table.hitab import read_hitab, table_from_hitab
from fortap.table.model import Table
from fortap.table.to_workbook import table_workbook

#     A              B        C
# 1                  eastern           (B1:C1 merged)
# 2   =total         french   other
# 3   food service   52.1     1,910
# 4   share          12%      (3)
RAW = {
    "title": "workers by region, 2011",
    "texts": [["", "eastern", ""], ["=total", "french", "other"],
              ["food service", "52.1", "1,910"], ["share", "12%", "(3)"]],
    "merged_regions": [{"first_row": 0, "last_row": 0, "first_column": 1, "last_column": 2},
                       {"first_row": 3, "last_row": 5, "first_column": 0, "last_column": 0}],
    "top_header_rows_num": 2,
    "left_header_columns_num": 1,
}  # fmt: skip


def saved(book: openpyxl.Workbook) -> openpyxl.Workbook:
    buffer = io.BytesIO()
    book.save(buffer)
    return openpyxl.load_workbook(io.BytesIO(buffer.getvalue()))


def test_a_hitab_table_lands_at_a1_numbers_as_numbers_texts_as_texts():
    sheet = saved(table_workbook(table_from_hitab(RAW, "t.json"), "grid"))["grid"]
    values = [[cell.value for cell in row] for row in sheet.iter_rows(max_row=4, max_col=3)]
    assert values == [[None, "eastern", None], ["=total", "french", "other"],
                      ["food service", 52.1, 1910], ["share", "12%", "(3)"]]  # fmt: skip
    assert sheet["A2"].data_type == "s"  # text that looks like a formula stays text
    assert sheet["C3"].data_type == "n"
    # the second region runs past the grid's last row: merged only where it lies inside it
    assert [str(r) for r in sheet.merged_cells.ranges] == ["B1:C1"]


def test_a_table_keeps_its_place_in_its_sheet():
    cells = (
        (Cell("year", "text"), Cell("paid", "text"), Cell("closed", "text")),
        (Cell(2019.0, "number"), Cell(True, "bool"), Cell("2019-12-31T00:00:00", "date")),
    )
    table = Table("b.xlsx", "S", Region(3, 2, 4, 4), cells, merged=(Region(0, 1, 0, 2),))
    sheet = saved(table_workbook(table))["table"]
    assert [sheet["C4"].value, sheet["D4"].value, sheet["E4"].value] == ["year", "paid", "closed"]
    assert [sheet["C5"].value, sheet["D5"].value] == [2019, True]
    assert sheet["E5"].value == dt.datetime(2019, 12, 31)
    assert sheet["A1"].value is None
    assert [str(r) for r in sheet.merged_cells.ranges] == []  # D4:E4 would hide "closed"


def test_real_hitab_tables_keep_every_value(data_dir):
    for path in sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[:20]:
        table = read_hitab(path)
        sheet = saved(table_workbook(table))["table"]
        for r in range(table.n_rows):
            for c in range(table.n_cols):
                cell = table.cell(r, c)
                assert sheet.cell(r + 1, c + 1).value == cell.value, (path.name, r, c)
