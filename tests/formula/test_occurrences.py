"""The first-five rule over a sheet's formulas, by $-aware R1C1 identity."""

import pytest

from fortap.formula import parse_formula
from fortap.formula.occurrences import first_occurrences


def test_a_dragged_column_keeps_its_first_five():
    cells = [(r, 3, "=RC[-2]*R2C19") for r in range(10)]
    assert first_occurrences(cells) == {(r, 3) for r in range(5)}


def test_rows_and_columns_are_counted_separately():
    # the same R1C1 filled over a 7 x 7 block: five per column and five per row survive
    cells = [(r, c, "=RC[-1]") for r in range(7) for c in range(7)]
    kept = first_occurrences(cells)
    assert kept == {(r, c) for r in range(5) for c in range(5)}


def test_different_formulas_do_not_compete():
    cells = [(r, 0, "=R[-1]C+1") for r in range(6)] + [(r, 0, f"=R{r}C2") for r in range(6, 9)]
    kept = first_occurrences(cells, limit=2)
    assert kept == {(0, 0), (1, 0), (6, 0), (7, 0), (8, 0)}


def test_dollar_anchored_copies_are_one_formula():
    texts = [f"=B{r + 1}*$S$2" for r in range(8)]
    r1c1 = [parse_formula(t, cell=(r, 3)).r1c1 for r, t in enumerate(texts)]
    assert len(set(r1c1)) == 1
    assert len(first_occurrences((r, 3, s) for r, s in enumerate(r1c1))) == 5


def test_limit_must_be_positive():
    with pytest.raises(ValueError, match="limit"):
        first_occurrences([], limit=0)
