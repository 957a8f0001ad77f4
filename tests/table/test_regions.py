"""Table regions in literal sheets: blocks, titles and notes, joins, fragments, size limits."""

from __future__ import annotations

import pytest

from fortap.sheet.model import Region
from fortap.table.regions import RegionConfig, find_regions

from .table_grids import sheet


def regions(scan):
    return [(t.region.a1, t.context, t.cut) for t in scan.tables]


def test_one_table_with_title_above_and_note_below():
    rows = [
        ["Table 1. Sales by region"],
        [],
        ["", "2019", "2020"],
        ["north", 1, 2],
        ["south", 3, 4],
        [],
        ["Source: our books"],
    ]
    scan = find_regions(sheet(rows))
    assert regions(scan) == [("A3:C5", ("Table 1. Sales by region", "Source: our books"), None)]
    assert scan.skipped == ()


def test_stacked_title_lines_chain_upwards():
    rows = [
        ["Table 7."],
        [],
        ["Sales by region"],
        [],
        [],
        ["", "a", "b"],
        ["r1", 1, 2],
        ["r2", 3, 4],
    ]
    assert regions(find_regions(sheet(rows))) == [("A6:C8", ("Table 7.", "Sales by region"), None)]


def test_title_line_touching_the_table_is_peeled_off():
    rows = [["Sales by region", "", ""], ["", "2019", "2020"], ["north", 1, 2], ["south", 3, 4]]
    assert regions(find_regions(sheet(rows))) == [("A2:C4", ("Sales by region",), None)]


def test_trailing_footnotes_are_peeled_off():
    rows = [["", "a", "b"], ["x1", 1, 2], ["x2", 3, 4], ["1/ Includes estimates."]]
    assert regions(find_regions(sheet(rows))) == [("A1:C3", ("1/ Includes estimates.",), None)]


def test_two_tables_side_by_side_and_stacked():
    rows = [
        ["", "a", "b", "", "", "", "c", "d"],
        ["r1", 1, 2, "", "", "", 5, 6],
        ["r2", 3, 4, "", "", "", 7, 8],
        [],
        [],
        [],
        ["", "e", "f"],
        ["r3", 1, 2],
    ]
    assert regions(find_regions(sheet(rows))) == [
        ("A1:C3", (), None),
        ("G1:H3", (), None),
        ("A7:C8", (), None),
    ]


def test_fragments_are_skipped_with_a_reason():
    rows = [["", "a", "b"], ["r1", 1, 2], ["r2", 3, 4], [], [], [], [], ["", "", "", "", "lonely"]]
    scan = find_regions(sheet(rows))
    assert regions(scan) == [("A1:C3", (), None)]
    assert scan.skipped == ((Region(7, 4, 7, 4), "fragment"),)


def test_merged_cell_joins_what_it_spans():
    rows = [["", "group", "", ""], ["", "a", "", "b"], ["r", 1, "", 2]]
    merged = [(0, 1, 0, 3)]
    assert regions(find_regions(sheet(rows, merged))) == [("A1:D3", (), None)]


def test_header_split_by_empty_rows_joins_the_body():
    rows = [
        ["kind", "", "1998", "1999"],
        [],
        ["", "", "total", "total"],
        [],
        [],
        ["retail", "", 12, 13],
        ["food", "", 5, 6],
    ]
    assert regions(find_regions(sheet(rows))) == [("A1:D7", (), None)]


def test_body_going_on_after_one_spacer_row_is_one_table():
    rows = [["", "a", "b"], ["total", 9, 9], [], ["x1", 1, 2], ["x2", 3, 4]]
    assert regions(find_regions(sheet(rows))) == [("A1:C5", (), None)]


def test_new_header_after_a_spacer_row_is_a_new_table():
    rows = [["", "a", "b"], ["r1", 1, 2], ["r2", 3, 4], [], ["", "c", "d"], ["r3", 1, 2]]
    assert regions(find_regions(sheet(rows))) == [("A1:C3", (), None), ("A5:C6", (), None)]


def test_spacer_columns_inside_a_table():
    rows = [["year", "", "n", "%"], [1994, "", 205, 0.3], [1995, "", 309, 0.4]]
    assert regions(find_regions(sheet(rows))) == [("A1:D3", (), None)]


def test_block_larger_than_the_limits_is_cut():
    rows = [["", "a", "b", "c"]] + [[f"r{i}", i, i, i] for i in range(6)]
    scan = find_regions(sheet(rows), RegionConfig(max_rows=4, max_cols=3))
    assert regions(scan) == [("A1:C4", (), "7 rows > max_rows 4; 4 columns > max_cols 3")]


def test_table_away_from_a1():
    rows = [["", "a", "b"], ["r1", 1, 2], ["r2", 3, 4]]
    assert regions(find_regions(sheet(rows, top=5, left=3))) == [("D6:F8", (), None)]


def test_empty_sheet_has_no_tables():
    scan = find_regions(sheet([[""]]))
    assert scan.tables == () and scan.skipped == ()


def test_config_rejects_nonsense():
    with pytest.raises(ValueError, match="RegionConfig.max_rows"):
        RegionConfig(max_rows=0)
    with pytest.raises(ValueError, match="RegionConfig.header_gap"):
        RegionConfig(header_gap=-1)
    with pytest.raises(ValueError, match="min_rows"):
        RegionConfig(min_rows=10, max_rows=5)
