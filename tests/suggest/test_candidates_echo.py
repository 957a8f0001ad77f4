import math

from fortap.sheet.model import Cell
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.echo import candidates
from fortap.suggest.candidates.values import key_of
from fortap.suggest.context import Target
from tests.suggest.test_candidates_induced import context


def echoed(text: str, value: object) -> Cell:
    """A formula cell that carries another cell's value over (cached `value`)."""
    kind = "text" if isinstance(value, str) else "number"
    return Cell(value, kind, formula=text)


def parameter_book(target_value: str = "ELC") -> tuple:
    """E2 names a sector; I5:I8 repeat it (`=$E$2`), I8 is the target."""
    values = {"D2": "Sector", "E2": "ELC", "H4": "Fuel", "I4": "Sector",
              "H5": "Coal", "H6": "Gas", "H7": "Oil", "H8": "Wind"}  # fmt: skip
    block = {(r, 8): echoed("=$E$2", "ELC") for r in (4, 5, 6)}
    return context(values, {**block, (7, 8): echoed("=$E$2", target_value)}), Target("S", 7, 8)


def test_a_repeated_parameter_is_an_absolute_reference():
    ctx, target = parameter_book()
    cands = candidates(ctx, target, frozenset({("S", 7, 8)}))
    first = cands[0]
    assert first.formula == "=$E$2"
    assert first.source == "echo"
    assert first.features["echo_col"] == 3.0  # I5, I6 and I7 each repeat E2
    assert first.features["echo_abs"] == 1.0 and first.features["echo_text"] == 1.0
    assert first.features["echo_near"] == 1.0  # I7, next to the target
    # each anchor's "ELC" stands in 3 other cells: E2 and the two other cells of I5:I7
    assert first.features["echo_log_amb"] == math.log(3)
    assert first.features["echo_landed"] == 1.0
    assert first.reason == "repeats E2, as 3 neighbouring cells repeat theirs"


def test_a_fourth_holder_makes_the_value_too_common():
    ctx, target = parameter_book()
    extra, _ = parameter_book()
    # "ELC" also in A10: the anchors I5:I7 then have 4 sources each (E2, A10, two of I5:I7)
    sheet = extra.book.sheets[0]
    sheet.cells[(9, 0)] = echoed("ELC", "ELC")
    fresh = type(extra).from_workbook(extra.book)
    hidden = frozenset({("S", 7, 8)})
    assert "=$E$2" not in [c.formula for c in candidates(fresh, target, hidden)]
    # hidden, A10 counts as empty and E2 is pointed at again
    again = candidates(fresh, target, hidden | {("S", 9, 0)})
    assert again[0].formula == "=$E$2"


def seen(cands) -> list[tuple]:
    return [(c.formula, c.reason, dict(c.features)) for c in cands]


def test_the_target_value_is_never_read():
    ctx, target = parameter_book("ELC")
    hidden = frozenset({("S", 5, 7)})  # H6 "Gas" hidden too
    want = seen(candidates(ctx, target, hidden))
    assert want
    for value in ("Coal", "other", "ELC", ""):
        other, _ = parameter_book(value)
        other.book.sheets[0].cells[(5, 7)] = Cell(value or "ELC", "text")  # the hidden H6 too
        fresh = type(other).from_workbook(other.book)
        assert want == seen(candidates(fresh, target, hidden))
        assert want == seen(candidates(fresh, target, hidden - {("S", 5, 7)} | hidden))


def test_a_label_carried_over_is_a_relative_reference():
    # B2:D2 repeat the labels of A5:A7 one by one (=A5, =A6, =A7 would not drag; a row that
    # copies the row above does): row 3 copies row 2, so C3 = C2
    values = {"A1": "Region", "B2": "North", "C2": "South", "D2": "East"}
    copies = {(2, 1): echoed("=B2", "North"), (2, 3): echoed("=D2", "East")}
    ctx = context(values, {**copies, (2, 2): echoed("=C2", "South")})
    cands = candidates(ctx, Target("S", 2, 2), frozenset())
    by_text = {c.formula: c for c in cands}
    assert by_text["=C2"].features["echo_row"] == 2.0  # B3 and D3 both copy the cell above
    assert by_text["=C2"].features["echo_abs"] == 0.0
    assert cands[0].formula == "=C2"
    # C2 hidden: the relative template would point at a hidden cell, so it is not proposed
    hidden = {c.formula for c in candidates(ctx, Target("S", 2, 2), frozenset({("S", 1, 2)}))}
    assert "=C2" not in hidden
    # a formula that shows nothing ("") is not a value to point at
    blank = context(values, {**copies, (1, 2): echoed('=IF(A1,"","")', "")})
    assert "=C2" not in {c.formula for c in candidates(blank, Target("S", 2, 2), frozenset())}


def test_common_values_are_not_echoed():
    assert key_of(Cell(7.0, "number")) is None  # a small integer stands anywhere
    assert key_of(Cell(True, "bool")) is None
    assert key_of(Cell("x", "text")) is None
    assert key_of(Cell(2020.0, "number")) == ("n", 2020.0)
    assert key_of(Cell(" North ", "text")) == ("t", "North")
    # a value written in five cells points nowhere
    values = {f"A{i}": "Total" for i in range(1, 6)}
    ctx = context(values, {(5, 0): echoed("=A1", "Total")})
    assert candidates(ctx, Target("S", 6, 0), frozenset()) == []


def test_hidden_cells_are_neither_anchors_nor_pointed_at():
    ctx, target = parameter_book()
    hidden = frozenset({("S", 7, 8), ("S", 1, 4)})  # E2 hidden: nothing to point at
    assert all(c.formula != "=$E$2" for c in candidates(ctx, target, hidden))
    block = frozenset({("S", r, 8) for r in range(4, 8)})  # the block hidden: only I4 is left
    cands = candidates(ctx, target, block)
    assert [c.formula for c in cands] == ["=$D$2"]  # I4 "Sector" repeats D2; D6 is empty


def test_generate_merges_echo_with_the_other_sources():
    ctx, target = parameter_book()
    cands = generate(ctx, target, setting="paper")
    first = next(c for c in cands if c.formula == "=$E$2")
    assert first.features["src_echo"] == 1.0
