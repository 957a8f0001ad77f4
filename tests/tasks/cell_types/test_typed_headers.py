"""`bench/headers.py --with-model`'s helpers on literal tables: header counts from cell types
(`tasks/cell_types/typed_headers.py`), SAUS's header cells and their counts (`saus_headers.py`),
and the types' cache (`oof_types.py`)."""

from __future__ import annotations

import pytest

from fortap.sheet.model import Region
from fortap.table import build_table
from fortap.tasks.cell_types.labels import CLASS_INDEX
from fortap.tasks.cell_types.oof_types import class_of, read_types, write_types
from fortap.tasks.cell_types.saus_headers import count_sheet, predicted_labels
from fortap.tasks.cell_types.typed_headers import combine, typed_counts, with_counts
from tests.table.table_grids import sheet

META, DATA, LEFT, TOP = (CLASS_INDEX[k] for k in ("metadata", "data", "left_attribute",
                                                    "top_attribute"))  # fmt: skip
ROWS = [
    ["", "Sales", ""],
    ["", "2019", "2020"],
    ["North", 1, 2],
    ["South", 3, 4],
]


def shape(node):
    return tuple((c.row, c.col, shape(c)) for c in node.children)


def table_of(rows, top=0, left=0):
    s = sheet(rows, top=top, left=left)
    return build_table(s, Region(top, left, s.n_rows - 1, s.n_cols - 1))


def test_typed_counts_are_the_leading_rows_and_columns_mostly_of_the_attribute_types():
    t = table_of(ROWS)
    types = {(0, 1): TOP, (1, 1): TOP, (1, 2): TOP, (2, 0): LEFT, (3, 0): LEFT}
    types |= {(r, c): DATA for r in (2, 3) for c in (1, 2)}
    assert typed_counts(t, types) == (2, 1)
    # one of two cells of row 1 is not more than half: the header ends above it
    assert typed_counts(t, {**types, (1, 2): DATA}) == (1, 1)
    # an untyped cell counts against; South alone is one of two left cells
    assert typed_counts(t, {k: v for k, v in types.items() if k != (2, 0)}) == (2, 0)


def test_a_blank_row_decides_nothing_and_a_title_row_ends_the_header():
    t = table_of([["", "A", "B"], [], ["", "x", "y"], ["N", 1, 2]])
    types = {(0, 1): TOP, (0, 2): TOP, (2, 1): TOP, (2, 2): TOP, (3, 0): LEFT}
    assert typed_counts(t, types) == (3, 1)
    titled = table_of([["Sales by region"], ["", "A", "B"], ["N", 1, 2]])
    # no header rows, so the title is one of column A's two cells: no header column either
    assert typed_counts(titled, {(0, 0): META, (1, 1): TOP, (1, 2): TOP, (2, 0): LEFT}) == (0, 0)


def test_with_counts_builds_the_trees_again_as_the_detector_would():
    t = table_of(ROWS)
    assert (t.top_header_rows, t.left_header_cols) == (2, 1)
    one = with_counts(t, 1, 1)
    assert (one.top_header_rows, one.left_header_cols) == (1, 1)
    assert shape(one.top_root) == ((0, 1, ()),)
    again = with_counts(one, 2, 1)
    assert (shape(again.top_root), shape(again.left_root)) == (
        shape(t.top_root),
        shape(t.left_root),
    )
    assert with_counts(t, 2, 1) is t


def test_combine_reads_sheet_coordinates_and_takes_the_larger_count_under_max():
    t = table_of(ROWS, top=3, left=2)  # the table at C4 of its sheet
    assert (t.top_header_rows, t.left_header_cols) == (2, 1)
    types = {(3, 3): TOP, (4, 3): TOP, (4, 4): TOP, (5, 3): LEFT, (5, 4): LEFT, (6, 3): LEFT,
             (6, 4): LEFT, (5, 2): LEFT, (6, 2): LEFT}  # fmt: skip
    model = combine(t, types, "model")
    assert (model.top_header_rows, model.left_header_cols) == (2, 2)
    no_rows = {k: v for k, v in types.items() if k[0] != 4}
    both = combine(t, no_rows, "max")  # the model: 1 row, 2 columns; the detector 2 and 1
    assert (both.top_header_rows, both.left_header_cols) == (2, 2)
    with pytest.raises(ValueError, match="how must be one of"):
        combine(t, types, "min")


def test_saus_header_cells_in_sheet_coordinates_and_their_counts():
    t = table_of(ROWS, top=1, left=1)
    pred = predicted_labels([t])
    assert {rc for rc, k in pred.items() if k == "header"} == {
        (r, c) for r in (1, 2) for c in (1, 2, 3)
    }
    assert {rc for rc, k in pred.items() if k == "attributes"} == {(3, 1), (4, 1)}
    gold = [[None] * 4, [None, None, "header", None], [None, None, "header", "header"],
            [None, "attributes", "data", "data"], [None, "data", "data", "data"]]  # fmt: skip
    per = {k: [0, 0, 0] for k in ("top", "left", "overall")}
    count_sheet(per, pred, gold)
    # top: 3 found, (2, 1) called header but unlabelled, (1, 3) unlabelled; left: South is data
    assert per == {"top": [3, 0, 0], "left": [1, 1, 0], "overall": [4, 1, 0]}


def test_the_types_cache_keeps_what_it_was_made_from(tmp_path):
    path = tmp_path / "types.json"
    types = {"a.xls!S": class_of({(0, 1): (TOP, 0.9), (2, 0): (LEFT, 0.6)})}
    write_types(path, "stamp-1", types)
    assert read_types(path, "stamp-1") == {"a.xls!S": {(0, 1): TOP, (2, 0): LEFT}}
    assert read_types(path, "stamp-2") is None
    assert read_types(tmp_path / "none.json", "stamp-1") is None
