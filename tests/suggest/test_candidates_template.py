from fortap.suggest.candidates.template import candidates
from fortap.suggest.context import BookContext, Target
from tests.suggest.sheets_ranker import book, sheet


def test_aggregates_over_the_numbers_above_and_autosum_order():
    ctx = BookContext.from_workbook(book(sheet("S", {
        "A1": "Item", "B1": "Sales", "A2": "a", "B2": 3, "A3": "b", "B3": 4, "A4": "Total",
    })))  # fmt: skip
    cands = candidates(ctx, Target("S", 3, 1), frozenset({("S", 3, 1)}))
    texts = [c.formula for c in cands]
    assert texts[:5] == [
        "=SUM(B2:B3)",
        "=AVERAGE(B2:B3)",
        "=MIN(B2:B3)",
        "=MAX(B2:B3)",
        "=COUNT(B2:B3)",
    ]
    assert texts[5:7] == ["=B3-B2", "=B2-B3"]  # pairs of the two cells above follow
    assert cands[0].reason == "SUM of the 2 numbers above"
    assert cands[0].features["autosum_order"] == 0.0
    assert cands[0].features["header_agrees"] == 1.0  # "Total" in the row label
    assert cands[1].features["header_agrees"] == 0.0


def test_pairs_of_the_two_cells_left_with_change_header():
    ctx = BookContext.from_workbook(book(sheet("S", {
        "A1": "Item", "B1": 2019, "C1": 2020, "D1": "% change", "A2": "x", "B2": 10, "C2": 12,
    })))  # fmt: skip
    cands = candidates(ctx, Target("S", 1, 3), frozenset({("S", 1, 3)}))
    by_text = {c.formula: c for c in cands}
    assert "=SUM(B2:C2)" in by_text
    for text in (
        "=C2-B2",
        "=B2-C2",
        "=B2+C2",
        "=B2*C2",
        "=C2/B2",
        "=B2/C2",
        "=(C2-B2)/B2",
        "=C2/B2-1",
    ):
        assert text in by_text
    assert by_text["=(C2-B2)/B2"].features["header_agrees"] == 1.0
    assert by_text["=B2*C2"].features["header_agrees"] == 0.0


def test_a_hidden_cell_ends_the_run():
    ctx = BookContext.from_workbook(book(sheet("S", {"B1": 1, "B2": 2, "B3": 3})))
    hidden = frozenset({("S", 3, 1), ("S", 1, 1)})  # B4 (the target) and B2
    cands = candidates(ctx, Target("S", 3, 1), hidden)
    assert cands[0].formula == "=SUM(B3)"
    assert cands[0].reason == "SUM of the number above"


def test_block_sum_over_spaced_rows_stops_at_text_or_a_formula():
    ctx = BookContext.from_workbook(book(sheet("S", {
        "A1": "Health", "B2": 4, "B4": 6, "B5": 1, "A7": "Total", "A8": "x",
        "B9": 2, "B11": 3, "B12": "=SUM(B9:B11)", "B14": 5,
    })))  # fmt: skip
    cands = [c for c in candidates(ctx, Target("S", 6, 1), frozenset()) if "across" in c.reason]
    assert [c.formula for c in cands] == ["=SUM(B2:B6)", "=SUM(B2:B5)"]  # to B6, or to B5
    assert cands[0].reason == "SUM of the 3 numbers above, across empty cells"
    assert cands[0].features["header_agrees"] == 1.0
    # below the subtotal in B12 the block is B14 alone: nothing beyond the contiguous run
    assert not [c for c in candidates(ctx, Target("S", 14, 1), frozenset()) if "across" in c.reason]
