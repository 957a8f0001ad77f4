"""Cell classification used by the header rules."""

from __future__ import annotations

import pytest

from fortap.sheet.model import Cell, CellStyle
from fortap.table.layout import indent_level, is_label, is_numeric, is_placeholder, is_year

from .table_grids import layout


@pytest.mark.parametrize(
    ("text", "numeric", "year", "placeholder", "label"),
    [
        ("1,234", True, False, False, False),
        ("(12.5)", True, False, False, False),
        ("45%", True, False, False, False),
        ("$1,200", True, False, False, False),
        ("190 cm", True, False, False, False),
        ("95% ci", False, False, False, True),
        ("2017", False, True, False, True),
        ("2016-17", False, True, False, True),
        ("fy 2018", False, True, False, True),
        ("..", False, False, True, False),
        ("x", False, False, True, False),
        ("n/a", False, False, True, False),
        ("Total", False, False, False, True),
        ("r2: 0.2", False, False, False, True),
    ],
)
def test_text_cells(text, numeric, year, placeholder, label):
    c = Cell(text, "text")
    assert (is_numeric(c), is_year(c), is_placeholder(c), is_label(c)) == (
        numeric,
        year,
        placeholder,
        label,
    )


def test_number_cells():
    assert is_numeric(Cell(3.5, "number")) and not is_label(Cell(3.5, "number"))
    assert is_year(Cell(2017.0, "number")) and is_label(Cell(2017.0, "number"))
    assert not is_year(Cell(2017.5, "number"))
    assert is_numeric(Cell(None, "empty", formula="=A1+1"))  # a formula computes a value
    assert is_numeric(Cell(2.0, "number", formula="=A1+1"))
    assert not is_label(Cell())


def test_indent_from_style_then_spaces():
    assert indent_level(Cell("a", "text", style=CellStyle(indent=2))) == 2
    assert indent_level(Cell("    a", "text")) == 2
    assert indent_level(Cell("   a", "text"), spaces_per_level=3) == 1
    assert indent_level(Cell(4.0, "number")) == 0


def test_layout_regions_and_anchors():
    lay = layout([["a", "", "b"], ["", "", "c"]], merged=[(0, 0, 1, 1)])
    assert lay.region(1, 1).a1 == "A1:B2"
    assert lay.region(1, 2).a1 == "C2"
    assert lay.is_covered(1, 0) and not lay.is_covered(0, 0)
    assert lay.anchors(0) == [0, 2]
    assert lay.anchors(1) == [2]
    assert lay.anchors(0, start_col=1) == [2]
