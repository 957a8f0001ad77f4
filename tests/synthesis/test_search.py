"""The synthesiser on literal sheets: one block per template family, the formula it must find."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fortap.sheet.model import Cell, Sheet
from fortap.synthesis import Grid, SynthConfig, synthesise, text_at
from fortap.synthesis.template import evaluate, excel_round

A, B, C = [12, 30, 7, 45, 18, 9, 27], [4, 5, 2, 9, 6, 3, 11], [3, 8, 5, 2, 7, 4, 6]


def sheet_of(rows: list[list]) -> Sheet:
    cells = {}
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            if v is not None:
                kind = "text" if isinstance(v, str) else "number"
                cells[(r, c)] = Cell(value=v, kind=kind)
    return Sheet("S", "book.xlsx", len(rows), max(map(len, rows)), cells)


def block(fn, far: list | None = None) -> Sheet:
    """A header row, then rows of a, b, c (columns B to D) and E computed by `fn(a, b, c)`;
    with `far`, column Q (12 places right of E) holds it and `fn` reads it as c."""
    rows: list[list] = [["item", "a", "b", "c", "d"]]
    for i in range(len(A)):
        c = C[i] if far is None else far[i]
        extra = [] if far is None else [None] * 11 + [far[i]]
        rows.append([f"x{i}", A[i], B[i], C[i], fn(A[i], B[i], c), *extra])
    return sheet_of(rows)


def first(sheet: Sheet, row: int = 4, col: int = 4, **kw) -> list[str]:
    return [f.formula for f in synthesise(Grid.of(sheet), row, col, cfg=SynthConfig(**kw))]


def test_a_distant_reference():
    far = [101, 202, 303, 404, 505, 606, 707]
    assert first(block(lambda a, b, x: x, far))[0] == "=Q5"


def test_three_references_and_brackets():
    assert first(block(lambda a, b, c: a * b / c))[0] == "=B5*C5/D5"
    assert first(block(lambda a, b, c: (a - b) / b))[0] == "=(B5-C5)/C5"


def test_round_of_a_ratio():
    sheet = block(lambda a, b, c: float(excel_round(np.array(a / b), 2)))
    assert first(sheet)[0] == "=ROUND(B5/C5,2)"


def test_an_anchored_cell_holds_the_rate():
    rows = [["rate", 0.0825], ["item", "net", "tax"]]
    rows += [[f"x{i}", a, a * 0.0825] for i, a in enumerate([120.5, 80.25, 44.0, 310.75, 99.9])]
    assert "=B5*$B$1" in first(sheet_of(rows), row=4, col=2)


def test_a_block_of_equal_values_points_at_their_cell():
    rows = [["rate", 0.0825], ["item", "net", "rate"]]
    rows += [[f"x{i}", a, 0.0825] for i, a in enumerate([120.5, 80.25, 44.0, 310.75, 99.9])]
    found = first(sheet_of(rows), row=4, col=2)
    assert "=$B$1" in found
    assert "=C4" in found  # the cell above, dragged down: the same values


def test_a_zero_guard_needs_a_zero_to_show():
    rows: list[list] = [["item", "a", "b", "share"]]
    for i, (a, b) in enumerate([(3, 4), (5, 0), (7, 8), (9, 2), (1, 0), (6, 5)]):
        rows.append([f"x{i}", a, b, 0 if b == 0 else a / b])
    assert first(sheet_of(rows), row=3, col=3)[0] == "=IF(C4=0,0,B4/C4)"


def test_a_row_of_totals_sums_the_column_above():
    rows: list[list] = [["", "q1", "q2", "q3", "q4"]]
    rows += [[f"r{i}", *(A[i + j] * B[j] + C[i] for j in range(4))] for i in range(3)]
    rows.append(["total", *(sum(r[j] for r in rows[1:]) for j in range(1, 5))])
    assert first(sheet_of(rows), row=4, col=2)[0] == "=SUM(C2:C4)"


def test_a_lone_total_is_offered_without_neighbours():
    rows: list[list] = [["item", "amount"]] + [[f"x{i}", v] for i, v in enumerate([3.5, 4, 12])]
    rows.append(["total", 19.5])
    found = synthesise(Grid.of(sheet_of(rows)), 4, 1)
    lone = [f for f in found if f.family == "lone"]
    assert [f.formula for f in lone] == ["=SUM(B2:B4)"] and lone[0].value == 19.5


def test_the_target_value_is_never_read():
    sheet = block(lambda a, b, c: a + b)
    g = Grid.of(sheet)
    before = [f.formula for f in synthesise(g, 4, 4)]
    g.values[4, 4] = 1e9  # what the target holds does not change what is found
    assert [f.formula for f in synthesise(g, 4, 4)] == before


def test_reason_names_the_block():
    found = synthesise(Grid.of(block(lambda a, b, c: a - b)), 4, 4)[0]
    assert (found.formula, found.reason) == ("=B5-C5", "reproduces the values of 6 cells of E2:E8")


def test_plus_writing_and_evaluation():
    tpl = ("op", "-", ("ref", 0, -3), ("ref", 0, -2))
    assert text_at(tpl, 4, 4, plus=True) == "=+B5-C5"
    sheet = block(lambda a, b, c: a - b)
    values = Grid.of(sheet).view()
    got = evaluate(tpl, np.array([1, 2]), np.array([4, 4]), values)
    assert got.tolist() == [A[0] - B[0], A[1] - B[1]]


def test_noise_gives_nothing_supported():
    rng = np.random.default_rng(0)
    rows: list[list] = [["item", "a", "b", "c", "d"]]
    rows += [[f"x{i}", *rng.integers(1000, 9999, 4).tolist()] for i in range(8)]
    found = synthesise(Grid.of(sheet_of(rows)), 4, 4)
    assert all(f.family == "lone" or f.support < 4 for f in found)


def test_min_support_below_two_is_refused():
    with pytest.raises(ValueError, match="min_support"):
        SynthConfig(min_support=1)


def test_excel_round_halves_away_from_zero():
    assert excel_round(np.array([2.5, -2.5, 0.125]), 2).tolist() == [2.5, -2.5, 0.13]
    assert math.isclose(float(excel_round(np.array(1234.5), -2)), 1200.0)
