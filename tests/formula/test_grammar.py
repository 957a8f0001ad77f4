"""Arity table, prefix-grammar constraint and sketch -> formula, by example and as a property."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fortap.errors import FormulaError
from fortap.formula import parse_formula
from fortap.formula.from_sketch import formula_of_sketch
from fortap.formula.grammar import LEAVES, SIGNATURES, function_arity
from fortap.formula.parser import parse_ast
from fortap.formula.prefix_grammar import PrefixGrammar
from fortap.formula.printer import to_text
from fortap.formula.sketch import prefix_tokens, sketch_of
from fortap.formula.tokens import END, FORMULA_VOCAB, START, UNKOP

GRAMMAR = PrefixGrammar()
ID = {t: i for i, t in enumerate(FORMULA_VOCAB)}


def allowed_after(tokens, budget=1 << 30):
    state = GRAMMAR.start()
    for t in tokens:
        assert GRAMMAR.allowed(state, budget)[ID[t]], f"{t} refused after {tokens}"
        state = GRAMMAR.advance(state, ID[t])
        budget -= 1
    mask = GRAMMAR.allowed(state, budget)
    return {FORMULA_VOCAB[i] for i, ok in enumerate(mask) if ok}


def test_every_value_token_has_an_arity_or_is_a_leaf():
    values = set(SIGNATURES) | set(LEAVES)
    assert values == set(FORMULA_VOCAB) - {START, END, UNKOP}
    assert function_arity("ROUND") == (2, 2)
    assert function_arity("SUM") == (1, 255)
    assert function_arity("IF") == (2, 3)
    assert function_arity("VLOOKUP") == (3, 4)
    assert function_arity("SUMPRODUCT") is None


def test_a_formula_starts_with_a_value_and_no_multi_cell_range():
    first = allowed_after([])
    assert "[END]" not in first and "[:]" not in first and UNKOP not in first
    assert "[C-NUM]" not in first  # `=0` holds no reference
    assert {"[RANGE]", "[SUM]", "[+]", "[ABS]"} <= first


def test_a_binary_operator_takes_two_operands_then_the_formula_ends():
    # `=C10+C10, C10` was `[+] [RANGE] [RANGE] [RANGE]`: the third `[RANGE]` has no place
    assert allowed_after(["[+]", "[RANGE]", "[RANGE]"]) == {"[END]"}


def test_round_takes_a_scalar_then_its_second_argument():
    assert "[:]" not in allowed_after(["[ROUND]"])  # no `ROUND(B7:B10, ...)`
    after_sum = allowed_after(["[ROUND]", "[SUM]", "[:]", "[RANGE]", "[RANGE]"])
    assert "[END]" not in after_sum  # ROUND still owes its digits
    assert {"[C-NUM]", "[:]"} <= after_sum  # the digits, or another SUM argument


def test_a_range_is_two_cell_ends():
    assert allowed_after(["[SUM]", "[:]"]) == {"[RANGE]", "[INDEX]", "[OFFSET]"}


def test_a_formula_without_a_reference_cannot_end():
    assert "[C-NUM]" not in allowed_after(["[ABS]"])  # ABS(0) could never get a reference
    assert "[C-NUM]" in allowed_after(["[+]"])  # `=0+B2`
    after = allowed_after(["[+]", "[C-NUM]"])
    assert "[END]" not in after and "[C-NUM]" not in after and "[RANGE]" in after


def test_the_budget_leaves_room_to_end():
    assert allowed_after([], budget=2) == {"[RANGE]"}
    three = allowed_after([], budget=3)  # `SUM(B2)` fits, `IF(B2,B3)` does not
    assert "[SUM]" in three and "[IF]" not in three
    assert allowed_after(["[SUM]", "[RANGE]"], budget=3) == {"[END]"}


@pytest.mark.parametrize(
    ("sketch", "text"),
    [
        (["[ROUND]", "[SUM]", "[:]", "[RANGE]", "[RANGE]", "[C-NUM]"], "=ROUND(SUM(B2:B6),0)"),
        (["[SUM]", "[SUM]", "[RANGE]", "[RANGE]"], "=SUM(SUM(B2,B6))"),
        (["[-]", "[-]", "[RANGE]", "[RANGE]"], "=-(B2-B6)"),
        (["[-]", "[RANGE]"], "=-B2"),
        (["[IF]", "[>]", "[RANGE]", "[C-NUM]", "[RANGE]", "[C-STR]"], '=IF(B2>0,B6,"")'),
    ],
)
def test_sketch_to_formula_by_example(sketch, text):
    cells = [(1, 1), (5, 1)][: sketch.count("[RANGE]")]
    assert to_text(formula_of_sketch([START, *sketch, END], cells)) == text


def test_sketch_to_formula_errors_name_the_sketch():
    with pytest.raises(FormulaError, match="1 cells for 2"):
        formula_of_sketch(["[+]", "[RANGE]", "[RANGE]"], [(0, 0)])
    with pytest.raises(FormulaError, match="no reading"):
        formula_of_sketch(["[+]", "[RANGE]", "[RANGE]", "[RANGE]"], [(0, 0)] * 3)
    with pytest.raises(FormulaError, match="no reading"):
        formula_of_sketch(["[ROUND]", "[:]", "[RANGE]", "[RANGE]"], [(0, 0)] * 2)


# --- property: whatever the constraint lets end parses, prints and round-trips -----------

VALUE_IDS = [i for i, t in enumerate(FORMULA_VOCAB) if t not in (START, END)]


@st.composite
def allowed_sketches(draw, max_len=24):
    """A sketch drawn token by token among the tokens the constraint allows."""
    state, tokens = GRAMMAR.start(), []
    for step in range(max_len):
        mask = GRAMMAR.allowed(state, max_len - step)
        choices = [i for i in VALUE_IDS if mask[i]]
        if mask[GRAMMAR.end_id] and (not choices or draw(st.integers(0, 3)) == 0):
            return tokens
        assert choices, f"no way on after {tokens}"
        token = draw(st.sampled_from(choices))
        tokens.append(FORMULA_VOCAB[token])
        state = GRAMMAR.advance(state, token)
    assert GRAMMAR.can_end(state), f"the budget did not end {tokens}"
    return tokens


@settings(max_examples=150, deadline=None)
@given(allowed_sketches(), st.data())
def test_every_allowed_sketch_parses_prints_and_round_trips(tokens, data):
    cells = [
        data.draw(st.tuples(st.integers(0, 60), st.integers(0, 20)))
        for _ in range(tokens.count("[RANGE]"))
    ]
    ast = formula_of_sketch(tokens, cells)
    text = to_text(ast)
    assert parse_ast(text) == ast
    assert to_text(parse_ast(text)) == text
    assert sketch_of(prefix_tokens(ast)) == (START, *tokens, END)
    f = parse_formula(text)
    assert f.sketch == (START, *tokens, END) and f.ranges == tuple(cells)
    assert f.verdict == "keep", text


def test_formula_text_of_a_candidate():
    from fortap.formula.from_sketch import formula_text

    assert formula_text(["[-]", "[RANGE]", "[RANGE]"], [(6, 1), (6, 1)]) == "=B7-B7"
