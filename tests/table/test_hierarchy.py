"""Top and left header trees on literal grids, as nested (row, col) tuples."""

from __future__ import annotations

from fortap.table.headers import HeaderConfig
from fortap.table.hierarchy import left_tree, top_tree
from fortap.table.model import HeaderNode

from .table_grids import layout


def shape(node: HeaderNode):
    """A tree as nested tuples: ((row, col, children), ...) for the root's children."""
    return tuple((c.row, c.col, shape(c)) for c in node.children)


def test_flat_header_row_skips_the_corner():
    lay = layout([["name", "a", "b"], ["x", 1, 2]])
    assert shape(top_tree(lay, 1, 1)) == ((0, 1, ()), (0, 2, ()))
    assert shape(top_tree(lay, 1, 0)) == ((0, 0, ()), (0, 1, ()), (0, 2, ()))


def test_merged_group_over_two_sub_headers():
    rows = [["Region", "Sales", "", "Total"], ["", 2019, 2020, ""], ["North", 1, 2, 3]]
    lay = layout(rows, merged=[(0, 0, 1, 0), (0, 1, 0, 2), (0, 3, 1, 3)])
    assert shape(top_tree(lay, 2, 1)) == ((0, 1, ((1, 1, ()), (1, 2, ()))), (0, 3, ()))


def test_parent_typed_once_reaches_over_empty_cells_with_headers_below():
    rows = [["", "Sales", "", "Cost", ""], ["", "q1", "q2", "q1", "q2"], ["a", 1, 2, 3, 4]]
    lay = layout(rows)
    assert shape(top_tree(lay, 2, 1)) == (
        (0, 1, ((1, 1, ()), (1, 2, ()))),
        (0, 3, ((1, 3, ()), (1, 4, ()))),
    )


def test_repeated_parent_labels_form_one_parent():
    rows = [["", "Sales", "Sales", "Cost"], ["", "q1", "q2", "q1"], ["a", 1, 2, 3]]
    lay = layout(rows)
    assert shape(top_tree(lay, 2, 1)) == ((0, 1, ((1, 1, ()), (1, 2, ()))), (0, 3, ((1, 3, ()),)))
    no_join = HeaderConfig(join_repeated=False)
    assert shape(top_tree(lay, 2, 1, no_join)) == (
        (0, 1, ((1, 1, ()),)),
        (0, 2, ((1, 2, ()),)),
        (0, 3, ((1, 3, ()),)),
    )


def test_repeated_leaf_labels_stay_apart():
    rows = [["", "a", "b"], ["", "number", "number"], ["x", 1, 2]]
    lay = layout(rows)
    assert shape(top_tree(lay, 2, 1)) == ((0, 1, ((1, 1, ()),)), (0, 2, ((1, 2, ()),)))


def test_wide_child_hangs_from_the_parent_over_its_first_column():
    # HiTab's convention: "percent" (merged over C2:E2) belongs to "rate" above C1 only.
    rows = [
        ["", "jobs", "rate", "share", "long"],
        ["", "thousands", "percent", "", ""],
        ["a", 1, 2, 3, 4],
    ]
    lay = layout(rows, merged=[(1, 2, 1, 4)])
    assert shape(top_tree(lay, 2, 1)) == (
        (0, 1, ((1, 1, ()),)),
        (0, 2, ((1, 2, ()),)),
        (0, 3, ()),
        (0, 4, ()),
    )


def test_top_tree_depth_is_capped():
    rows = [["a"], ["b"], ["c"], ["d"], ["e"], [1]]
    lay = layout(rows)
    tree = top_tree(lay, 5, 0, HeaderConfig(max_tree_depth=3))
    assert shape(tree) == ((0, 0, ((1, 0, ((2, 0, ()), (3, 0, ()), (4, 0, ()))),)),)


def test_left_tree_from_indentation():
    rows = [
        ["", "v"],
        ["North", 1],
        ["  Oslo", 2],
        ["    Center", 3],
        ["  Bergen", 4],
        ["South", 5],
    ]
    lay = layout(rows)
    assert shape(left_tree(lay, 1, 1)) == (
        (1, 0, ((2, 0, ((3, 0, ()),)), (4, 0, ()))),
        (5, 0, ()),
    )


def test_left_tree_across_columns_with_merged_parent():
    rows = [
        ["type", "name", "v"],
        ["Cities", "Blades", 1],
        ["", "Clayton", 2],
        ["Towns", "Milton", 3],
    ]
    lay = layout(rows, merged=[(1, 0, 2, 0)])
    assert shape(left_tree(lay, 1, 2)) == (
        (1, 0, ((1, 1, ()), (2, 1, ()))),
        (3, 0, ((3, 1, ()),)),
    )


def test_section_rows_adopt_the_rows_below():
    rows = [
        ["", "v"],
        ["all", 9],
        ["by sex", ""],
        ["men", 4],
        ["women", 5],
        ["by age", ""],
        ["young", 6],
    ]
    lay = layout(rows)
    assert shape(left_tree(lay, 1, 1)) == (
        (1, 0, ()),
        (2, 0, ((3, 0, ()), (4, 0, ()))),
        (5, 0, ((6, 0, ()),)),
    )


def test_no_left_header_gives_an_empty_tree():
    assert shape(left_tree(layout([["a", "b"], [1, 2]]), 1, 0)) == ()
