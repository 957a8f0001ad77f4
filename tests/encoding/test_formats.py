"""The 11-dim format vector, by example."""

from __future__ import annotations

from fortap.encoding.formats import DEFAULT_FORMAT, format_vector, merge_spans
from fortap.sheet.model import Cell, CellStyle, Region


def test_plain_text_cell_is_the_default_vector():
    assert format_vector(Cell("a", "text")) == DEFAULT_FORMAT
    assert DEFAULT_FORMAT == (0.25, 0.25, 0, 0, 0, 0, 0, 0, 0, 1, 1)


def test_every_feature_in_order():
    style = CellStyle(
        bold=True, border_top=True, border_bottom=False, border_left=True, border_right=False,
        fill_color="FFFFFF00", font_color="FFFF0000",
    )  # fmt: skip
    cell = Cell(3.0, "number", formula="=1+2", style=style)
    assert format_vector(cell, (2, 6)) == (0.5, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0)


def test_white_fill_and_black_font_by_colour():
    style = CellStyle(fill_color="FFFFFFFF", font_color="FF000000")
    assert format_vector(Cell("x", "text", style=style))[9:] == (1.0, 1.0)


def test_dates_and_bools_are_non_text_errors_and_empties_are_not():
    assert [
        format_vector(Cell(v, k))[6]
        for v, k in [("2019-01-01", "date"), (True, "bool"), ("#N/A", "error"), (None, "empty")]
    ] == [1.0, 1.0, 0.0, 0.0]


def test_every_cell_of_a_merge_gets_its_size():
    spans = merge_spans([Region(0, 0, 1, 2), Region(3, 3, 3, 4)])
    assert spans == {
        (0, 0): (2, 3), (0, 1): (2, 3), (0, 2): (2, 3), (1, 0): (2, 3), (1, 1): (2, 3), (1, 2): (2, 3),
        (3, 3): (1, 2), (3, 4): (1, 2),
    }  # fmt: skip
