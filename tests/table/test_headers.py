"""Header row and column counts on literal grids, smallest first."""

from __future__ import annotations

import pytest

from fortap.table.headers import HeaderConfig, count_header_cols, count_header_rows

from .table_grids import layout


def counts(rows, merged=()):
    lay = layout(rows, merged)
    h = count_header_rows(lay)
    return h, count_header_cols(lay, h)


def test_one_header_row_one_label_column():
    assert counts([["", "a", "b"], ["north", 1, 2], ["south", 3, 4]]) == (1, 1)


def test_no_header_in_a_grid_of_numbers():
    assert counts([[1, 2], [3, 4]]) == (0, 0)


def test_two_level_header_with_merged_group_and_corner():
    rows = [
        ["Region", "Sales", "", "Total"],
        ["", 2019, 2020, ""],
        ["North", 1, 2, 3],
        ["  Oslo", 4, 5, 9],
    ]
    assert counts(rows, merged=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 1, 3)]) == (2, 1)


def test_years_stay_in_the_header():
    assert counts([["", 2017, 2018], ["a", 1.5, 2.5]]) == (1, 1)
    assert counts([["", "2016-17", "2017-18"], ["a", "1,200", "1,300"]]) == (1, 1)


def test_unit_row_spanning_all_data_columns_ends_the_header():
    rows = [["", "women", "men"], ["", "percent", ""], ["canada", 50.1, 49.9]]
    assert counts(rows, merged=[(1, 1, 1, 2)]) == (1, 1)


def test_spanning_group_header_is_not_a_unit_row():
    # "level" spans every data column but sub-headers follow, not values.
    rows = [["", "level", ""], ["", "college", "university"], ["a", 1, 2]]
    assert counts(rows, merged=[(0, 1, 0, 2)]) == (2, 1)
    rows = [["", "model", ""], ["", "level", ""], ["", "college", "university"], ["a", 1, 2]]
    assert counts(rows, merged=[(0, 1, 0, 2), (1, 1, 1, 2)]) == (3, 1)


def test_section_row_ends_the_header():
    rows = [["", "a", "b"], ["by sex", "", ""], ["men", 1, 2], ["women", 3, 4]]
    assert counts(rows) == (1, 1)


def test_placeholders_count_as_values_below_the_first_row():
    assert counts([["name", "x", "y"], ["a", "..", "-"], ["b", 1, 2]]) == (1, 1)


def test_column_numbers_under_a_spanning_header():
    rows = [["", "years", "", ""], ["", 1, 2, 3], ["a", 10.5, 11.5, 12.5]]
    assert counts(rows, merged=[(0, 1, 0, 3)]) == (2, 1)


def test_merged_header_cell_pulls_rows_in():
    rows = [["", "a", "b"], ["", "", "c"], ["row", 1, 2]]
    assert counts(rows, merged=[(0, 1, 1, 1)]) == (2, 1)


def test_merged_corner_over_a_unit_row_does_not():
    rows = [["k", "women", "men"], ["", "percent", ""], ["canada", 50.1, 49.9]]
    assert counts(rows, merged=[(0, 0, 1, 0), (1, 1, 1, 2)]) == (1, 1)


def test_text_only_table_uses_bold_rows():
    assert counts([["*name", "*town"], ["*", ""], ["ann", "oslo"], ["bob", "rome"]]) == (1, 1)
    assert counts([["*name", "*town"], ["*first", "*where"], ["ann", "oslo"]]) == (2, 1)
    assert counts([["name", "town"], ["ann", "oslo"], ["bob", "rome"]]) == (1, 1)


def test_blank_rows_inside_the_header_are_skipped():
    rows = [["kind", "", "1998"], ["", "", ""], ["", "", "total"], ["", "", ""], ["a", "", 12]]
    assert counts(rows)[0] == 3


def test_stub_columns_with_label_data_join_the_left_header():
    rows = [
        ["year", "team", "rushing", ""],
        ["", "", "att", "yds"],
        [2010, "wis", 20, 289],
        [2011, "wis", 55, 933],
    ]
    merged = [(0, 0, 1, 0), (0, 1, 1, 1), (0, 2, 0, 3)]
    assert counts(rows, merged) == (2, 2)


def test_numeric_stub_column_stays_data():
    rows = [["year", "games", "att"], [2010, 13, 20], [2011, 14, 55]]
    assert counts(rows) == (1, 1)


def test_rank_column_is_a_left_header():
    rows = [["rank", "name", "score"], [1, "ann", 9.5], [2, "bob", 9.1], [3, "cy", 8.0]]
    assert counts(rows) == (1, 2)


def test_max_header_rows_limits_the_count():
    rows = [["a", "b"], ["c", "d"], ["e", "f"], ["x", 1]]
    lay = layout(rows)
    assert count_header_rows(lay) == 3
    assert count_header_rows(lay, HeaderConfig(max_header_rows=2)) == 1  # falls back to one row


def test_config_rejects_nonsense():
    with pytest.raises(ValueError, match="HeaderConfig.max_header_rows"):
        HeaderConfig(max_header_rows=-1)
    with pytest.raises(ValueError, match="HeaderConfig.label_share"):
        HeaderConfig(label_share=1.0)
    with pytest.raises(ValueError, match="HeaderConfig.max_tree_depth"):
        HeaderConfig(max_tree_depth=0)


def test_code_column_with_a_code_header_joins_the_left_header():
    rows = [["industry", "NAICS code", "workers"], ["software", 5112, 240.5], ["mining", 21, 23.7]]
    assert counts(rows) == (1, 2)
    rows = [["industry", "No. of farms", "workers"], ["a", 5112, 240.5], ["b", 21, 23.7]]
    assert counts(rows) == (1, 1)
