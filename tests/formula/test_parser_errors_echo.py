"""An error quotes at most `errors.ECHO` characters of the input it names."""

from __future__ import annotations

import pytest

from fortap.errors import ECHO, FortapError, echo
from fortap.formula import parse_formula


def test_short_input_is_quoted_whole_and_long_input_is_cut():
    assert echo("=SUM(B2:B5))") == "'=SUM(B2:B5))'"
    cut = echo("x" * 8000)
    assert cut.startswith("'" + "x" * ECHO + "'...") and cut.endswith("(7,800 more characters)")


def test_a_deeply_nested_formula_is_not_read_back_whole():
    deep = "=" + "(" * 4000 + "1" + ")" * 4000
    with pytest.raises(FortapError) as err:
        parse_formula(deep, "S", (0, 0))
    assert "nesting too deep" in str(err.value)
    assert len(str(err.value)) < ECHO + 150
