"""NCP candidates, referenced cells and the row/column-only test."""

import pytest

from fortap.formula import parse_formula
from fortap.formula.targets import (
    NCP_CLASSES,
    ncp_groups,
    on_row_or_column_only,
    referenced_cells,
)

NUMERIC = {(0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (3, 0)}  # A1 B1 C1 A2 A3 A4 hold numbers


def numeric(cell):
    return cell in NUMERIC


def groups(text):
    return [(g.operator, g.label, g.cells) for g in ncp_groups(parse_formula(text), numeric)]


def test_ncp_has_the_paper_17_classes():
    assert len(NCP_CLASSES) == 17
    assert NCP_CLASSES[-4:] == ("SUM", "AVERAGE", "MAX", "MIN")


def test_operator_over_numeric_references():
    assert groups("=A1+B1") == [("+", 1, ((0, 0), (0, 1)))]
    assert groups("=-A1") == [("-", 2, ((0, 0),))]  # unary minus merged with "-"
    assert groups("=A1%") == [("%", 0, ((0, 0),))]


def test_range_argument_gives_its_two_ends():
    assert groups("=SUM(A1:A4)") == [("SUM", 13, ((0, 0), (3, 0)))]
    # "/" has a function operand, so only AVERAGE forms a group
    assert groups("=AVERAGE(A1:A4)/C1") == [("AVERAGE", 14, ((0, 0), (3, 0)))]


def test_no_group_when_an_operand_is_not_a_numeric_reference():
    assert groups("=A1+1") == []
    assert groups("=A1+D9") == []  # D9 is not numeric
    assert groups("=ROUND(A1,2)") == []  # not among the 17
    assert groups("=Sheet2!A1+B1") == []


def test_first_group_per_operator_only():
    assert groups("=(A1+B1)+(A2+A3)") == [("+", 1, ((0, 0), (0, 1)))]


def test_referenced_cells_expand_and_clip():
    f = parse_formula("=SUM(A1:B2)+A1+C:C")
    assert referenced_cells(f, bounds=(3, 3)) == (
        (0, 0), (0, 1), (1, 0), (1, 1), (0, 2), (1, 2), (2, 2),
    )  # fmt: skip
    assert len(referenced_cells(parse_formula("=SUM(A:A)"), limit=7)) == 7


def test_row_or_column_only():
    assert on_row_or_column_only(parse_formula("=SUM(D2:D6)", cell=(6, 3)))
    assert on_row_or_column_only(parse_formula("=A7*B7", cell=(6, 3)))
    assert not on_row_or_column_only(parse_formula("=A7*B6", cell=(6, 3)))
    assert not on_row_or_column_only(parse_formula("=1+2", cell=(6, 3)))
    with pytest.raises(ValueError, match="cell"):
        on_row_or_column_only(parse_formula("=A1"))
