"""A1 <-> 0-based coordinates, the $-aware R1C1 form, table coordinates."""

import pytest

from fortap.formula.nodes import Address, Ref
from fortap.formula.references import (
    OffSheet,
    address_r1c1,
    column_index,
    insert_shift,
    on_row_or_column,
    parse_reference,
    quote_sheet,
    ref_a1,
    ref_box,
    ref_cells,
    shift_ref,
    split_sheet,
    to_table,
    transpose_ref,
)


def test_column_letters():
    assert [column_index(c) for c in ("A", "z", "AA", "XFD")] == [0, 25, 26, 16383]
    assert column_index("XFE") is None


def test_split_sheet():
    assert split_sheet("A1") == (None, "A1", False)
    assert split_sheet("Sheet1!A1") == ("Sheet1", "A1", False)
    assert split_sheet("'a!b''c'!$A$1") == ("a!b'c", "$A$1", True)


def test_a1_text_round_trip():
    for text in ("$B$2", "Sheet1!A1:C3", "'My sheet'!B:B", "$3:5", "'A1'!A1", "'TRUE'!C2"):
        assert ref_a1(parse_reference(text)) == text
    assert ref_a1(parse_reference("Sheet1!$A$1:B$2"), keep_dollar=False) == "Sheet1!A1:B2"
    assert quote_sheet("Data") == "Data" and quote_sheet("R2C3") == "'R2C3'"


def test_r1c1_relative_and_absolute():
    assert address_r1c1(Address(6, 1), (6, 3)) == "RC[-2]"
    assert address_r1c1(Address(1, 18, True, True), (6, 3)) == "R2C19"
    assert address_r1c1(Address(4, 3, False, True), (6, 3)) == "R[-2]C4"
    assert address_r1c1(Address(None, 0), (6, 3)) == "C[-3]"


def test_cells_boxes_and_table_coordinates():
    assert ref_cells(parse_reference("B2:D4")) == ((1, 1), (3, 3))
    assert ref_cells(parse_reference("C:C")) == ((0, 2), (1_048_575, 2))
    assert ref_cells(Ref("name", name="x")) == ()
    assert ref_box(parse_reference("D4:B2")) == (1, 1, 3, 3)
    assert on_row_or_column((1, 3, 5, 3), (9, 3))  # same column
    assert on_row_or_column((9, 0, 9, 2), (9, 3))  # same row
    assert not on_row_or_column((1, 1, 3, 3), (3, 3))  # a block
    assert to_table((5, 4), top=2, left=1, n_rows=10, n_cols=5) == (3, 3)
    assert to_table((1, 4), top=2, left=1, n_rows=10, n_cols=5) is None


def test_shift_ref_moves_relative_parts_keeps_dollar_parts_and_stops_at_the_edge():
    assert ref_a1(shift_ref(parse_reference("$A1:B$2"), 2, 1)) == "$A3:C$2"
    assert ref_a1(shift_ref(parse_reference("[1]LEM!X269"), 1, 0)) == "[1]LEM!X270"
    with pytest.raises(OffSheet):
        shift_ref(parse_reference("A1"), -1, 0)


def insert(text: str, at: int, count: int = 1, axis: str = "row") -> str:
    return ref_a1(insert_shift(parse_reference(text), at, count, axis))


def test_insert_shift_moves_parts_at_or_after_the_line_and_grows_a_spanning_range():
    # rows inserted before sheet row 4 (0-based 3): rows 1-3 stay, 4 and on move, $ or not
    assert insert("B2:B3", 3) == "B2:B3"  # wholly before: stays
    assert insert("B2:B6", 3) == "B2:B7"  # spans: grows
    assert insert("B4:B6", 3, 2) == "B6:B8"  # starts at the line: moves
    assert insert("$C$9", 3) == "$C$10" and insert("Sheet1!D4", 3) == "Sheet1!D5"
    assert insert("A:C", 3) == "A:C" and insert("2:5", 3) == "2:6"
    # columns inserted before column C (0-based 2)
    assert insert("A1:D1", 2, 1, "col") == "A1:E1" and insert("$B$1:B9", 2, 1, "col") == "$B$1:B9"
    assert insert("C5", 2, 3, "col") == "F5"
    assert insert("MyName", 0) == "MyName"
    with pytest.raises(OffSheet):
        insert("A1048576", 5)
    with pytest.raises(ValueError, match="axis"):
        insert("A1", 0, 1, "diagonal")


def test_transpose_ref_mirrors_on_the_corner_diagonal_and_swaps_dollars():
    def flip(text: str, top: int = 2, left: int = 1) -> str:
        return ref_a1(transpose_ref(parse_reference(text), top, left))

    # corner B3 (row 2, col 1): C3 is one column right of it -> one row below: B4
    assert flip("C3") == "B4" and flip("B3") == "B3" and flip("B5") == "D3"
    assert flip("C4:C7") == "C4:F4"  # a column range becomes a row range
    assert flip("$C4") == "C$4" and flip("C$4:$D$6") == "$C4:$E$5"
    for text in ("C4:E9", "$D$3", "B3:B3", "F8"):
        assert flip(flip(text)) == text  # an involution
    assert flip("Name") == "Name"
    with pytest.raises(OffSheet):
        flip("A1", top=0, left=5)  # 5 columns left of the corner -> 5 rows above row 1
