"""The verdict rejects what Excel rejects or can only answer with an error; degenerate forms are
flagged, not rejected."""

import pytest

from fortap.errors import FormulaError
from fortap.formula import parse_formula
from fortap.formula.degenerate import degenerate_signs, is_degenerate
from fortap.formula.validity import bare_union_position

# (text, verdict) for text that parses; "invalid_text" for text the parser refuses
INVALID = [
    ("=C10+C10, C10", "invalid_text"),  # a union outside parentheses: Excel refuses the text
    ("=A1,B1", "invalid_text"),
    ("=SUM(A1)+B1,C1", "invalid_text"),
    ("=ROUND(B7:B10)", "wrong_arity"),  # ROUND needs its digits
    ("=SUM()", "wrong_arity"),
    ("=IF(A1)", "wrong_arity"),
    ("=ABS(A1,A2)", "wrong_arity"),
    ("=VLOOKUP(A1,B1:C9)", "wrong_arity"),
    ("=INDEX(B1:B9)", "wrong_arity"),
    ("=C10+(C10,C10)", "union_as_value"),  # how formualizer reads the first line
    ("=(A1,B1)", "union_as_value"),  # a formula's value cannot be two areas
    ("=-(A1,B1)", "union_as_value"),
    ("=L9-(-4,3)", "union_as_value"),  # a comma-decimal writer's -4.3, a union in Excel
    ("=(B1+B2):B3", "non_reference_range"),
    ("=B1:5", "invalid_text"),  # `5` alone is no row, and `B1:5` is no name either
    ("=(B2>G2)+?", "invalid_text"),  # formualizer reads `?` as a name; Excel refuses the text
    ("=A1+1abc", "invalid_text"),
    ("=OFFSET(5,1,1)", "non_reference_argument"),
    ("=SUBTOTAL(9,B2+B3)", "non_reference_argument"),
]

VALID = [
    "=SUM((A1,B1))",  # a union inside its own parentheses
    "=SUM(A1,B1)",
    "=SMALL((AB2,AF2,AI2),1)",
    "=IF(A1,,2)",  # an omitted argument still counts
    "=ROUND(A1,)",
    "=ABS(B9:B41)",  # implicit intersection: Excel takes it
    "=SUM(IF(A1:A9>0,1))",  # an array formula's range operands
    "=SUBTOTAL(9,B2:B5)",
    "=B1:INDEX(B:B,3)",
    '="a,b"&A1',
    "=SUM(B5:B5)",  # degenerate, still valid
    "=B7-B7",
    "=+(B2>G2)",  # unary plus: what the decoder's `[+] [>] B2 G2` means
]


@pytest.mark.parametrize(("text", "reason"), INVALID)
def test_invalid_formulas_are_rejected_with_their_reason(text, reason):
    if reason == "invalid_text":
        with pytest.raises(
            FormulaError, match="invalid_text: (a union outside parentheses|.* is not a name)"
        ):
            parse_formula(text)
    else:
        assert parse_formula(text).verdict == reason


@pytest.mark.parametrize("text", VALID)
def test_valid_formulas_are_kept(text):
    assert parse_formula(text).verdict == "keep"


def test_bare_union_position_points_at_the_comma():
    assert bare_union_position("=C10+C10, C10") == 8
    assert bare_union_position("=SUM((A1,B1),C1)") is None
    assert bare_union_position("=IF(A1,(B1,C1),2)") is None


@pytest.mark.parametrize(
    ("text", "signs"),
    [
        ("=SUM(B5:B5)", {"one_cell_range"}),
        ("=B7-B7", {"same_operands"}),
        ("=B7/B7", {"same_operands"}),
        ("=IF(A1=A1,B1,0)", {"same_operands"}),
        ("=SUM(B5,B5)", {"repeated_argument"}),
        ("=B7+B7", set()),
        ("=SUM(B5:B6)", set()),
        ("=ROUND(B7,0)", set()),
    ],
)
def test_degenerate_forms_are_flagged(text, signs):
    ast = parse_formula(text).ast
    assert degenerate_signs(ast) == signs
    assert is_degenerate(ast) == bool(signs)


def test_fortap_formula_shows_the_degenerate_signs():
    from fortap.formula.report import describe

    assert "degenerate:    one_cell_range" in describe(parse_formula("=SUM(B5:B5)"))
    assert "degenerate" not in describe(parse_formula("=SUM(B5:B6)"))


def test_a_decoded_candidate_is_judged_from_its_sketch_and_cells():
    from fortap.formula.degenerate import sketch_is_degenerate

    sketch = ("[START]", "[SUM]", "[:]", "[RANGE]", "[RANGE]", "[END]")
    assert sketch_is_degenerate(sketch, [(4, 1), (4, 1)])  # =SUM(B5:B5)
    assert not sketch_is_degenerate(sketch, [(4, 1), (5, 1)])
    assert not sketch_is_degenerate(sketch, [(4, 1), None])  # a pointer outside the table


def test_defined_names_follow_excels_rule():
    for text in ("=Rate*B2", "=_total+1", "=\\net", "=a.b?+1", "=Sheet1!Rate"):
        assert parse_formula(text).verdict in ("named_range", "cross_sheet"), text
