"""HiTab raw table JSON -> Table: a literal table, errors naming the file, every real table."""

from __future__ import annotations

import json

import pytest

from fortap.errors import SheetError
from fortap.sheet.model import Region
from fortap.table.hitab import parse_cell, read_hitab, table_from_hitab
from fortap.table.model import HeaderNode

RAW = {
    "title": "workers by region, 2011",
    "texts": [["", "eastern", ""], ["", "french", "other"], ["food service", "52.1", "1,910"]],
    "merged_regions": [{"first_row": 0, "last_row": 0, "first_column": 1, "last_column": 2}],
    "top_header_rows_num": 2,
    "left_header_columns_num": 1,
    "top_root": {
        "row_index": -1,
        "column_index": -1,
        "children": [
            {
                "row_index": 0,
                "column_index": 1,
                "children": [
                    {"row_index": 1, "column_index": 1, "children": []},
                    {"row_index": 1, "column_index": 2, "children": []},
                ],
            }
        ],
    },
    "left_root": {
        "row_index": -1,
        "column_index": -1,
        "children": [{"row_index": 2, "column_index": 0, "children": []}],
    },
}


def test_parse_cell_numbers_text_and_empty():
    assert (parse_cell("52.1").value, parse_cell("52.1").kind) == (52.1, "number")
    assert parse_cell("1,910,361").value == 1910361.0
    assert parse_cell("-3").value == -3.0
    assert parse_cell("2.9%").kind == "text"
    assert parse_cell("1,91").kind == "text"
    assert parse_cell("  ").is_empty


def test_literal_table():
    table = table_from_hitab(RAW, "tables/raw/7.json")
    assert (table.n_rows, table.n_cols, table.sheet) == (3, 3, "7")
    assert table.context == ("workers by region, 2011",)
    assert table.merged == (Region(0, 1, 0, 2),)
    assert (table.top_header_rows, table.left_header_cols) == (2, 1)
    assert table.top_root == HeaderNode(
        -1, -1, (HeaderNode(0, 1, (HeaderNode(1, 1), HeaderNode(1, 2))),)
    )
    assert table.left_root == HeaderNode(-1, -1, (HeaderNode(2, 0),))
    assert table.cell(2, 2).value == 1910.0 and table.cell(0, 0).is_empty
    assert table.coordinates.top[2][1] == (-1, -1, 0, 0)


def test_bad_files_name_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    with pytest.raises(SheetError, match=r"cannot read HiTab table.*\(broken\.json\)"):
        read_hitab(path)
    path.write_text(json.dumps({**RAW, "texts": []}))
    with pytest.raises(SheetError, match=r"'texts' is not a non-empty matrix \(broken\.json\)"):
        read_hitab(path)


@pytest.mark.slow
def test_every_real_hitab_table_converts(data_dir):
    files = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))
    assert len(files) == 3597
    with_title = 0
    for path in files:
        table = read_hitab(path)
        assert table.n_rows >= 1 and table.n_cols >= 1
        table.coordinates  # noqa: B018  every table gets tree coordinates
        with_title += bool(table.context)
    assert with_title >= 3500  # 3,572 of the 3,597 tables carry a title
