import pytest

from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.anchor import normal_text, reanchor
from fortap.suggest.context import BookContext, Target
from tests.suggest.sheets_ranker import book, sales, sheet


@pytest.mark.parametrize(
    "text, src, dst, moved",
    [
        ("=B7*$S$2", (6, 3), (9, 5), "=D10*$S$2"),
        ("=SUM(A$1:A5)", (5, 0), (7, 2), "=SUM(C$1:C7)"),
        ("=Sheet2!$A1+'My sheet'!B$2", (0, 2), (3, 3), "=Sheet2!$A4+'My sheet'!C$2"),
        ("=SUM(B:B)", (0, 3), (0, 4), "=SUM(C:C)"),
        ("=AVERAGE(3:3)", (3, 0), (5, 0), "=AVERAGE(5:5)"),
    ],
)
def test_reanchor_moves_relative_parts_and_back(text, src, dst, moved):
    there = reanchor(parse_formula(text, "S", src), dst)
    assert there is not None and there.text == moved
    back = reanchor(parse_formula(there.text, "S", dst), src)
    assert back is not None and back.text == text
    # the R1C1 form is the copy's identity: the same on both cells
    assert parse_formula(moved, "S", dst).r1c1 == parse_formula(text, "S", src).r1c1


def test_reanchor_past_the_edge_is_none():
    assert reanchor(parse_formula("=A1+B2", "S", (1, 1)), (0, 1)) is None
    assert reanchor(parse_formula("=$A$1", "S", (1, 1)), (0, 0)).text == "=$A$1"


def test_normal_text_ignores_case_spaces_and_redundant_parentheses_not_dollars():
    assert normal_text("=sum( b2:b5 )") == normal_text("=SUM(B2:B5)") == "=SUM(B2:B5)"
    assert normal_text("=(C167)/(transfers!G25)") == "=C167/TRANSFERS!G25"
    assert normal_text("=$B$2") != normal_text("=B2")


def test_context_groups_formulas_by_r1c1_and_finds_the_dragged_block():
    ctx = BookContext.from_workbook(book(sheet("S", sales())))
    sc = ctx.sheet("S")
    assert sorted(sc.members) == ["=RC[-1]-RC[-2]", "=SUM(R[-3]C:R[-1]C)"]
    assert len(sc.members["=RC[-1]-RC[-2]"]) == 3
    assert ctx.dragged_block(Target("S", 4, 1)) == {("S", 4, 1), ("S", 4, 2)}
    assert ctx.sheet_names() == ["S"]


def test_unknown_sheet_and_setting_are_clear_errors():
    ctx = BookContext.from_workbook(book(sheet("S", sales())))
    with pytest.raises(FortapError, match="no sheet 'Nope'"):
        generate(ctx, Target("Nope", 0, 0))
    with pytest.raises(ValueError, match="setting must be one of"):
        generate(ctx, Target("S", 0, 0), setting="other")


def test_paper_setting_has_no_copy_or_sibling():
    ctx = BookContext.from_workbook(book(sheet("S", sales())))
    sources = {c.source for c in generate(ctx, Target("S", 4, 3), setting="paper")}
    assert sources == {"template", "synth"}  # both read values only


def test_references_into_another_workbook_move_like_any_other():
    from fortap.formula import parse_formula
    from fortap.suggest.candidates.anchor import reanchor

    # typed in D74, copied to C75: relative parts move one row down and one column left
    f = parse_formula("=+[1]LEM!Y1637/[1]LEM!Y$291+SUM([1]LEM!B1:C$3)", "S", (73, 3))
    assert reanchor(f, (74, 2)).text == "=+[1]LEM!X1638/[1]LEM!X$291+SUM([1]LEM!A2:B$3)"
    assert reanchor(parse_formula("=[1]LEM!A1", "S", (3, 3)), (0, 2)) is None  # off the sheet
