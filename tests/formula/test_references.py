"""A1 <-> 0-based coordinates, the $-aware R1C1 form, table coordinates."""

import pytest

from fortap.formula.nodes import Address, Ref
from fortap.formula.references import (
    OffSheet,
    address_r1c1,
    column_index,
    on_row_or_column,
    parse_reference,
    quote_sheet,
    ref_a1,
    ref_box,
    ref_cells,
    shift_ref,
    split_sheet,
    to_table,
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
