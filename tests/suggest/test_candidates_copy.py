from fortap.suggest.candidates import generate
from fortap.suggest.candidates.copy import candidates as copy_candidates
from fortap.suggest.context import BookContext, Target
from tests.suggest.sheets_ranker import book, sales, sheet


def _ctx(cells):
    return BookContext.from_workbook(book(sheet("S", cells)))


def test_copy_continues_the_block_below_it():
    ctx = _ctx(sales())
    target = Target("S", 4, 3)  # D5, empty
    cands = copy_candidates(ctx, target, frozenset({("S", 4, 3)}))
    texts = [c.formula for c in cands]
    assert texts[0] == "=C5-B5"
    assert cands[0].reason == "as in D2:D4, 3 cells filled down"
    assert cands[0].features["copy_above"] == 1.0
    assert cands[0].features["copy_n"] == 3.0
    assert "=SUM(D2:D4)" in texts  # the total row filled right


def test_dollar_parts_stay_and_relative_parts_move():
    ctx = _ctx({"A1": 2, "B1": 5, "B2": "=A2*$B$1", "A2": 1, "A3": 3})
    cands = copy_candidates(ctx, Target("S", 2, 1), frozenset({("S", 2, 1)}))
    assert [c.formula for c in cands] == ["=A3*$B$1"]


def test_mixed_references_keep_their_anchor():
    ctx = _ctx({"A1": 1, "B1": 2, "C2": "=A$1+$B2", "B2": 1, "B3": 4})
    cands = copy_candidates(ctx, Target("S", 2, 3), frozenset({("S", 2, 3)}))
    assert [c.formula for c in cands] == ["=B$1+$B3"]


def test_a_copy_that_would_leave_the_sheet_is_dropped():
    # B2 =A1 moved to A1 would point at row 0 / column -1
    ctx = _ctx({"A1": 1, "B2": "=A1", "A2": 3})
    assert copy_candidates(ctx, Target("S", 0, 0), frozenset({("S", 0, 0)})) == []
    assert [c.formula for c in copy_candidates(ctx, Target("S", 1, 2), frozenset())] == ["=B1"]


def test_hidden_block_gives_no_copy_and_the_target_never_copies_itself():
    ctx = _ctx(sales())
    target = Target("S", 2, 3)  # D3, inside the D2:D4 block
    block = ctx.dragged_block(target)
    assert block == {("S", 1, 3), ("S", 2, 3), ("S", 3, 3)}
    cands = generate(ctx, target, block, "new-formula")
    assert "=C3-B3" not in [c.formula for c in cands if c.source == "copy"]
    by_text = {c.formula: c for c in cands}
    assert by_text["=C3-B3"].source == "template"  # written anew from the two cells left
    assert "src_copy" not in by_text["=C3-B3"].features
    sheet_texts = [c.formula for c in generate(ctx, target)]
    assert sheet_texts[0] == "=C3-B3"


def test_cross_sheet_references_move_and_land_on_the_other_sheet():
    other = sheet("Data", {"A1": 1, "A2": 2, "A3": 3})
    main = sheet("S", {"B1": "=Data!A1*2", "B2": "=Data!A2*2", "A3": "x"})
    ctx = BookContext.from_workbook(book(main, other))
    cands = copy_candidates(ctx, Target("S", 2, 1), frozenset({("S", 2, 1)}))
    assert cands[0].formula == "=Data!A3*2"
    assert cands[0].features["land_other_sheet"] == 1.0
    assert cands[0].features["land_numbers"] == 1.0
