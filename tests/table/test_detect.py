"""Sheet -> tables end to end: a literal sheet first, then real HiTab, SAUS and xlsx files."""

from __future__ import annotations

import gzip
import json
import re

from fortap.sheet.model import Cell, CellStyle, Region, Sheet
from fortap.table import build_table, detect_tables
from fortap.table.model import Table

from .table_grids import sheet


def shape(node):
    return tuple((c.row, c.col, shape(c)) for c in node.children)


def test_literal_sheet_end_to_end():
    rows = [
        ["Sales by region, 2019-2020"],
        [],
        ["Region", "Sales", "", "Total"],
        ["", 2019, 2020, ""],
        ["North", 1, 2, 3],
        ["  Oslo", 4, 5, 9],
        ["  Bergen", 7, 8, 15],
        [],
        ["Source: ledger"],
    ]
    merged = [(2, 0, 3, 0), (2, 1, 2, 2), (2, 3, 3, 3)]
    [t] = detect_tables(sheet(rows, merged, book="b.xlsx", name="S1"))
    assert (t.book, t.sheet, t.region.a1) == ("b.xlsx", "S1", "A3:D7")
    assert t.context == ("Sales by region, 2019-2020", "Source: ledger")
    assert (t.top_header_rows, t.left_header_cols) == (2, 1)
    assert t.merged == (Region(0, 0, 1, 0), Region(0, 1, 0, 2), Region(0, 3, 1, 3))
    assert shape(t.top_root) == ((0, 1, ((1, 1, ()), (1, 2, ()))), (0, 3, ()))
    assert shape(t.left_root) == ((2, 0, ((3, 0, ()), (4, 0, ()))),)
    assert t.coordinates.top[4][2] == (-1, -1, 0, 1)  # Bergen's 2020 value
    assert t.coordinates.left[4][2] == (-1, -1, 0, 1)


def test_build_table_clips_merges_to_the_region():
    s = sheet([["a", "b", "c"], ["x", 1, 2]], merged=[(0, 0, 0, 2)])
    t = build_table(s, Region(0, 1, 1, 2))
    assert t.merged == (Region(0, 0, 0, 1),)
    assert t.cells[1] == (Cell(1.0, "number"), Cell(2.0, "number"))


def every_cell_has_coordinates(t: Table) -> bool:
    grid = t.coordinates
    return all(
        any(s != -1 for s in coord)
        for plane in (grid.top, grid.left)
        for row in plane
        for coord in row
    )


NUMBER = re.compile(r"^-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


def hitab_sheet(raw: dict) -> Sheet:
    cells = {}
    for r, row in enumerate(raw["texts"]):
        for c, text in enumerate(row):
            text = text.strip()
            if NUMBER.match(text):
                cells[(r, c)] = Cell(float(text.replace(",", "")), "number")
            elif text:
                cells[(r, c)] = Cell(text, "text")
    merged = tuple(
        Region(m["first_row"], m["first_column"], m["last_row"], m["last_column"])
        for m in raw["merged_regions"]
    )
    return Sheet("t", "hitab", len(raw["texts"]), len(raw["texts"][0]), cells, merged)


def test_hitab_tables_match_their_answer_key(data_dir):
    """Every 120th HiTab table: header rows as HiTab counts them (minus its title row)."""
    files = sorted((data_dir / "hitab/tables/raw").glob("*.json"))[::120]
    hits = 0
    for path in files:
        raw = json.loads(path.read_text())
        s = hitab_sheet(raw)
        t = build_table(s, Region(0, 0, s.n_rows - 1, s.n_cols - 1))
        hits += t.top_header_rows == raw["top_header_rows_num"] - 1
        assert every_cell_has_coordinates(t), path.name
    assert len(files) == 30
    assert hits >= 27  # bench/headers.py measures the whole set


def test_saus_sheet_finds_the_table_under_its_title(data_dir):
    with gzip.open(data_dir / "saus_ctc/saus.jl.gz", "rt") as fh:
        rec = json.loads(fh.readline())
    bold = rec["feature_names"].index("is_bold")
    cells = {}
    for r, row in enumerate(rec["table_array"]):
        for c, text in enumerate(row):
            style = CellStyle(bold=rec["feature_array"][r][c][bold] > 0)
            if NUMBER.match(text):
                cells[(r, c)] = Cell(float(text.replace(",", "")), "number", style=style)
            elif text.strip():
                cells[(r, c)] = Cell(text, "text", style=style)
    s = Sheet(rec["table_id"], rec["file_name"], rec["num_rows"], rec["num_cols"], cells)
    tables = detect_tables(s)
    assert [t.region.a1 for t in tables] == ["A5:X26"]
    [t] = tables
    assert t.context[0].startswith("Table 1021.")  # title lines chain upwards
    assert t.context[1] == "See notes."
    assert any("Census Bureau" in line for line in t.context)
    # rows 5-9 hold the headers; "Kind of business" and "2002 NAICS code" label the rows
    assert (t.top_header_rows, t.left_header_cols) == (5, 2)
    assert every_cell_has_coordinates(t)


def test_real_workbooks_detect_without_errors(data_dir):
    from fortap.sheet import read_workbook

    folder = data_dir / "hitab/annotation_examples/Sentence Revision Alignment Conversion-StatCan"
    books = sorted(folder.glob("*.xlsx"))[:8]
    assert books
    n_tables = 0
    for path in books:
        for s in read_workbook(path).sheets:
            for t in detect_tables(s):
                n_tables += 1
                assert t.n_rows <= 256 and t.n_cols <= 256
                assert 0 <= t.top_header_rows <= t.n_rows
                assert 0 <= t.left_header_cols <= t.n_cols
                assert every_cell_has_coordinates(t), (path.name, s.name, t.region.a1)
    assert n_tables > 0
