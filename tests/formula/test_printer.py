"""Printer: parse(print(ast)) == ast, by example and as a hypothesis property."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fortap.formula import parse_formula
from fortap.formula.nodes import MISSING, Address, Const, Func, Op, Ref
from fortap.formula.parser import parse_ast
from fortap.formula.printer import number_text, to_text
from fortap.formula.references import MAX_COLS, MAX_ROWS, ref_a1

EXAMPLES = [
    "=-2^2", "=-(2^2)", "=-A1%", "=(-A1)%", "=2^3^4", "=2^(3^4)", "=1-(2-3)", "=(1-2)-3",
    "=SUM((A1,B1),C1)", "=A1:INDEX(B:B,3) C1", "='My s'!$A$1+Sheet2!B:B", "={1,2;3,4}",
    '=IF(A1,,"x""y")', "=-A1:B2", "=1e-05+1E+20+0.5", "=(A1&B1)&C1", "=A1&(B1&C1)",
    "=(1<2)=TRUE", "=-(A1+B1)%", "=+-A1",
]  # fmt: skip


@pytest.mark.parametrize("text", EXAMPLES)
def test_print_then_parse_is_identity(text):
    ast = parse_ast(text)
    assert parse_ast(to_text(ast)) == ast


def test_printer_adds_only_needed_parentheses():
    assert to_text(parse_ast("=((A1+B1))*(C1)")) == "=(A1+B1)*C1"
    assert to_text(parse_ast("=A1-(B1-C1)")) == "=A1-(B1-C1)"
    assert to_text(parse_ast("=(A1-B1)-C1")) == "=A1-B1-C1"
    assert number_text(2.0) == "2" and number_text(0.5) == "0.5"


# --- hypothesis: random trees of our node kinds ------------------------------------------

SHEETS = st.sampled_from([None, "Sheet1", "My sheet", "It's", "A1", "data.2024"])
ROW = st.integers(0, MAX_ROWS - 1)
COL = st.integers(0, MAX_COLS - 1)
ADDRESS = st.builds(Address, ROW, COL, st.booleans(), st.booleans())
CELL = st.builds(lambda s, a: Ref("cell", s, a), SHEETS, ADDRESS)
AREA = st.builds(lambda s, a, b: Ref("area", s, a, b), SHEETS, ADDRESS, ADDRESS)
COLUMNS = st.builds(
    lambda s, a, b, x, y: Ref("area", s, Address(None, a, False, x), Address(None, b, False, y)),
    SHEETS, COL, COL, st.booleans(), st.booleans(),
)  # fmt: skip
# no subnormals: a torch test in the same worker may have set flush-to-zero
NUMBER = st.one_of(
    st.integers(0, 10**9).map(float),
    st.floats(0, 1e12, allow_nan=False, allow_infinity=False, allow_subnormal=False),
).map(lambda v: Const("num", v))
TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=6)
LEAF = st.one_of(
    CELL, AREA, COLUMNS, NUMBER,
    TEXT.map(lambda s: Const("str", s)),
    st.booleans().map(lambda b: Const("bool", b)),
    st.sampled_from(["#N/A", "#DIV/0!", "#VALUE!"]).map(lambda e: Const("err", e)),
)  # fmt: skip
BINARY = ["+", "-", "*", "/", "^", "&", "=", "<>", ">", ">=", "<", "<="]
FUNCS = ["SUM", "IF", "ROUND", "VLOOKUP", "MYFUNC", "CONCAT"]


def _extend(children):
    return st.one_of(
        st.builds(lambda op, a, b: Op(op, (a, b)), st.sampled_from(BINARY), children, children),
        st.builds(lambda op, a: Op(op, (a,)), st.sampled_from(["u-", "u+", "%"]), children),
        st.builds(
            lambda name, args: Func(name, tuple(args)),
            st.sampled_from(FUNCS),
            st.lists(st.one_of(children, st.just(MISSING)), max_size=3).filter(
                lambda args: not args or any(a is not MISSING for a in args)
            ),
        ),
    )


TREES = st.recursive(LEAF, _extend, max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES)
def test_parse_of_print_is_identity(ast):
    assert parse_ast(to_text(ast)) == ast


@settings(max_examples=200, deadline=None)
@given(TREES, st.sampled_from([None, "Sheet1"]), st.tuples(st.integers(0, 50), st.integers(0, 20)))
def test_shape_reuse_gives_the_same_formula(ast, host, cell):
    text = to_text(ast)
    fresh = parse_formula(text, host, cell, reuse_shapes=False)
    for _ in range(2):  # first call learns the shape, second is built from it
        reused = parse_formula(text, host, cell)
        assert reused == fresh
        assert reused.ast == fresh.ast


def _shift(ast, d_row, d_col):
    """The text of `ast` dragged by (d_row, d_col): relative parts move, `$` parts stay."""

    def move(a):
        if a is None:
            return None
        row = a.row if a.row is None or a.abs_row else a.row + d_row
        col = a.col if a.col is None or a.abs_col else a.col + d_col
        return Address(row, col, a.abs_row, a.abs_col)

    def ref_text(ref):
        if ref.start is None:
            return ref_a1(ref)
        return ref_a1(Ref(ref.kind, ref.sheet, move(ref.start), move(ref.end), ref.name))

    return to_text(ast, ref_text)


SMALL_CELL = st.builds(
    lambda r, c, ar, ac: Ref("cell", None, Address(r, c, ar, ac)),
    st.integers(0, 30), st.integers(0, 10), st.booleans(), st.booleans(),
)  # fmt: skip
SMALL_TREES = st.recursive(st.one_of(SMALL_CELL, NUMBER), _extend, max_leaves=6)


@settings(max_examples=200, deadline=None)
@given(SMALL_TREES, st.integers(0, 20), st.integers(0, 8))
def test_dragged_copies_share_the_r1c1_text(ast, d_row, d_col):
    cell = (40, 12)
    original = parse_formula(to_text(ast), cell=cell)
    dragged = parse_formula(_shift(ast, d_row, d_col), cell=(40 + d_row, 12 + d_col))
    assert dragged.r1c1 == original.r1c1
    assert dragged.sketch == original.sketch
