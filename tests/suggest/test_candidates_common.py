import math
from collections import Counter

import pytest

from fortap.errors import FortapError
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.common import BookCounts, CommonSource, CommonTable
from fortap.suggest.context import BookContext, Target
from fortap.suggest.ranker import Ranker, RankerConfig, train_ranker
from fortap.suggest.train import examples, labels_of
from tests.suggest.sheets_ranker import book, sales, sheet


def _ctx(cells) -> BookContext:
    return BookContext.from_workbook(book(sheet("S", cells)))


def priced(n: int, shift: int = 0) -> dict:
    """Price in B, quantity in C, D = B * C for `n` rows, starting `shift` rows lower; E scales
    C by the first price (an absolute reference)."""
    cells = {f"A{1 + shift}": "Item", f"B{1 + shift}": "Price", f"C{1 + shift}": "Qty"}
    for r in range(2 + shift, 2 + shift + n):
        cells |= {f"B{r}": r, f"C{r}": 3, f"D{r}": f"=B{r}*C{r}", f"E{r}": f"=$B$2*C{r}"}
    return cells


def table_of(*books) -> CommonTable:
    return CommonTable.learn(BookCounts.of(_ctx(cells)) for cells in books)


def test_a_formula_counts_once_per_workbook_and_only_relative_ones_are_kept():
    table = table_of(priced(5), priced(2, shift=3), priced(3, shift=1), sales())
    assert table.formulas["=RC[-2]*RC[-1]"] == 3  # five cells in one book still count once
    assert not any("$" in text for text, _, _ in table.examples.values())
    assert not any(key.startswith("=R2C2") for key in table.formulas)  # $B$2 is absolute
    assert table.formulas["=RC[-1]-RC[-2]"] == 1  # sales() alone writes it
    assert [key for key, _, _ in table.placed] == ["=RC[-2]*RC[-1]"]  # MIN_BOOKS = 3


def test_a_common_formula_is_moved_where_its_cells_hold_values():
    source = CommonSource(table_of(priced(5), priced(2), priced(3)))
    ctx = _ctx({"A1": "Item", "B1": "Price", "C1": "Qty", "B7": 4, "C7": 10, "F9": 1})
    (cand,) = source.candidates(ctx, Target("S", 6, 3), frozenset())  # D7
    assert (cand.formula, cand.source) == ("=B7*C7", "common")
    assert cand.features["cm_log_books"] == math.log1p(3)
    assert cand.features["land_numbers"] == 1.0
    assert source.candidates(ctx, Target("S", 8, 6), frozenset()) == []  # G9: E9 empty
    hidden = frozenset({("S", 6, 2)})  # C7 hidden: it counts as empty
    assert source.candidates(ctx, Target("S", 6, 3), hidden) == []
    assert source.candidates(ctx, Target("S", 6, 2), frozenset()) == []  # C7: A7 is empty


def test_a_formula_that_would_cover_the_target_is_not_proposed():
    key = "=SUM(RC[-1]:RC)"  # written at B1 as =SUM(A1:B1): it covers its own cell
    source = CommonSource(CommonTable(Counter({key: 3}), {key: ("=SUM(A1:B1)", 0, 1)}))
    ctx = _ctx({"A1": "x", "B2": 1, "C2": 2})
    assert source.candidates(ctx, Target("S", 1, 2), frozenset()) == []  # C2: B2:C2 holds C2
    (ok,) = source.candidates(ctx, Target("S", 1, 3), frozenset())  # D2: C2:D2, D2 empty
    assert ok.formula == "=SUM(C2:D2)"


def test_a_training_workbook_does_not_see_its_own_counts():
    books = [priced(5), priced(2), priced(3)]
    table = table_of(*books)
    own = table.without(BookCounts.of(_ctx(books[0])))
    assert own.formulas["=RC[-2]*RC[-1]"] == 2 and own.placed == []  # below MIN_BOOKS
    ctx, target = _ctx(books[0]), Target("S", 2, 3)
    assert not any(
        c.features.get("src_common") for c in generate(ctx, target, setting="paper", common=own)
    )
    full = generate(ctx, target, setting="paper", common=table)
    assert any(c.features.get("src_common") and c.formula == "=B3*C3" for c in full)  # merged


def test_the_sketch_counts_only_where_asked():
    ctx = _ctx(sales())
    target = Target("S", 2, 3)  # D3 = C3-B3
    cands = generate(ctx, target, setting="paper")
    at = {c.formula: i for i, c in enumerate(cands)}
    y = labels_of(ctx, target, cands, sketches=True)
    assert (y[at["=C3-B3"]], y[at["=B3-C3"]], y[at["=B3+C3"]]) == (2, 1, 0)  # same sketch: 1
    assert labels_of(ctx, target, cands)[at["=B3-C3"]] == 0
    plain = {"A1": "x", "B1": 4, "C1": 5, "D1": "=SUMPRODUCT(B1:C1,B1:C1)"}
    _, _, missed, unused = examples(_ctx(plain), [Target("S", 0, 3)], "paper", sketches=True)
    assert (missed, unused) == (1, 1)  # no candidate has its formula or its sketch


def test_the_table_round_trips_beside_the_ranker(tmp_path):
    table = table_of(priced(5), priced(2), priced(3), sales())
    table.save(tmp_path)
    back = CommonTable.load(tmp_path)
    assert [(k, n) for k, n, _ in back.placed] == [(k, n) for k, n, _ in table.placed]
    assert back.formulas["=RC[-1]-RC[-2]"] == 0  # below MIN_BOOKS: not saved
    assert CommonTable.load(tmp_path / "none") is None


def test_a_broken_table_is_a_clear_error_and_a_stale_one_is_removed(tmp_path):
    for text in ("{", "[]", '{"formulas": [["=RC[-1]", 1e400, "=A1", 0, 1]]}'):
        (tmp_path / "common.json").write_text(text)
        with pytest.raises(FortapError, match="cannot read .*common.json"):
            CommonTable.load(tmp_path)
    hand = '{"formulas": [["=R1C1", 9, "=$A$1", 0, 1]]}'
    (tmp_path / "common.json").write_text(hand)
    assert CommonTable.load(tmp_path).placed == []  # an absolute reference: never proposed
    ctx = _ctx(sales())
    g, y, _, _ = examples(ctx, [Target("S", 2, 3), Target("S", 3, 3)], "sheet")
    plain = train_ranker(g, y, RankerConfig(rounds=2, leaves=2, min_data_in_leaf=1))
    plain.save(tmp_path)  # a ranker without a table, saved where one was
    assert not (tmp_path / "common.json").exists() and Ranker.load(tmp_path).common is None
