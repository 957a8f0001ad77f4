"""Formula text -> our AST, and the errors for text that does not parse."""

import pytest

from fortap.errors import FormulaError
from fortap.formula.nodes import MISSING, Address, Array, Const, Func, Op, Ref
from fortap.formula.parser import parse_ast


def cell(row, col, abs_row=False, abs_col=False, sheet=None):
    return Ref("cell", sheet, Address(row, col, abs_row, abs_col))


def test_smallest_formulas():
    assert parse_ast("=A1") == cell(0, 0)
    assert parse_ast("1.5") == Const("num", 1.5)  # leading "=" is optional
    assert parse_ast('="a""b"') == Const("str", 'a"b')
    assert parse_ast("=TRUE") == Const("bool", True)
    assert parse_ast("=#DIV/0!") == Const("err", "#DIV/0!")


def test_references_keep_sheet_and_dollar_flags():
    assert parse_ast("='It''s'!$B2") == cell(1, 1, abs_col=True, sheet="It's")
    assert parse_ast("=Sheet1!A$1:$C3") == Ref(
        "area", "Sheet1", Address(0, 0, True, False), Address(2, 2, False, True)
    )
    assert parse_ast("=$A:C") == Ref("area", None, Address(None, 0, False, True), Address(None, 2))
    assert parse_ast("=2:$4") == Ref("area", None, Address(1, None), Address(3, None, True, False))
    assert parse_ast("=[1]Sheet1!A1") == Ref("external", name="[1]Sheet1!A1")
    assert parse_ast("=Jan:Dec!A1") == Ref("3d", name="Jan:Dec!A1")
    assert parse_ast("=Table1[Col]") == Ref("table", name="Table1[Col]")
    assert parse_ast("=rate") == Ref("name", name="rate")
    assert parse_ast("=XFE1") == Ref("name", name="XFE1")  # beyond the last column


def test_operators_and_functions():
    assert parse_ast("=-A1%") == Op("u-", (Op("%", (cell(0, 0),)),))
    assert parse_ast("=A1 B1") == Op(" ", (cell(0, 0), cell(0, 1)))
    assert parse_ast("=IF(A1,,2)") == Func("IF", (cell(0, 0), MISSING, Const("num", 2.0)))
    assert parse_ast("=_xlfn.CONCAT(A1)") == Func("CONCAT", (cell(0, 0),))
    assert parse_ast("={1,2;3,4}") == Array(
        ((Const("num", 1.0), Const("num", 2.0)), (Const("num", 3.0), Const("num", 4.0)))
    )


def test_text_that_spells_an_error_stays_text():
    ast = parse_ast('=IF(A1="#N/A",#N/A,"#N/A")')
    assert ast.args[0].args[1] == Const("str", "#N/A")
    assert ast.args[1] == Const("err", "#N/A")
    assert ast.args[2] == Const("str", "#N/A")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("=SUM(B2:B5))", "invalid_text"),
        ("=SUM(B2:B5", "invalid_text"),
        ("=SUM(Capital Projects Page 6!H53:H61)", "invalid_text"),
        ("=[1]!'SGJ200,LA'", "external_workbook"),
        ("=", "empty formula"),
    ],
)
def test_invalid_formulas_raise_formula_error(text, reason):
    with pytest.raises(FormulaError) as info:
        parse_ast(text)
    assert info.value.reason.startswith(reason)
    assert info.value.text == text
    assert repr(text) in str(info.value)


def test_error_names_position():
    with pytest.raises(FormulaError) as info:
        parse_ast("=SUM(B2:B5")
    assert info.value.position is not None
