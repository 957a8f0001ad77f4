"""One copy of the fill/AutoSum rule (`fortap.formula.fill_rule`), followed by both the rule
baseline over a table and the suggestion engine's rule order over a sheet; one `spread`."""

from fortap.corpus.spread import spread
from fortap.formula.fill_rule import autosum_runs, fill_key, fill_scan, number_run, rule_key
from fortap.suggest.candidates import generate
from fortap.suggest.context import BookContext, Target
from fortap.suggest.features import rule_order
from fortap.tasks.formula_prediction.rule_baseline import suggest
from tests.suggest.sheets_ranker import book, sheet
from tests.tasks.expense_table import expense_table

# `expense_table()` as a sheet: the total column D and the total row 4
EXPENSES = {
    "A1": "item", "B1": "jan", "C1": "feb", "D1": "total",
    "A2": "rent", "B2": 100, "C2": 110, "D2": "=B2+C2",
    "A3": "food", "B3": 50, "C3": 60, "D3": "=B3+C3",
    "A4": "total", "B4": "=SUM(B2:B3)", "C4": "=SUM(C2:C3)", "D4": "=SUM(D2:D3)",
}  # fmt: skip


def test_the_fill_scan_is_the_column_then_the_row_nearest_first_above_and_left_first():
    assert fill_scan(5, 5, reach=2) == [(4, 5), (6, 5), (3, 5), (7, 5),
                                        (5, 4), (5, 6), (5, 3), (5, 7)]  # fmt: skip
    assert fill_key((5, 5), (4, 5)) < fill_key((5, 5), (6, 5)) < fill_key((5, 5), (5, 4))
    assert fill_key((5, 5), (4, 4))[0] == 2  # neither its column nor its row


def test_autosum_sums_the_run_above_first_and_stops_at_the_first_non_number():
    numbers = {(0, 1), (1, 1), (2, 0), (2, 1)}
    above = number_run(numbers.__contains__, [(1, 1), (0, 1)])
    left = number_run(numbers.__contains__, [(2, 0), (2, -1)])
    assert above == [(1, 1), (0, 1)] and left == [(2, 0)]
    assert [side for side, _ in autosum_runs(above, left)] == ["above", "left"]
    assert [side for side, _ in autosum_runs([], left)] == ["left"]
    assert rule_key(3, 0) < rule_key(None, 0) < rule_key(None, 1) < rule_key(None, None)


def test_the_rule_baseline_and_the_engines_rule_order_agree():
    ctx = BookContext.from_workbook(book(sheet("Sheet1", EXPENSES)))
    for rc in ((2, 3), (3, 2), (3, 3)):
        baseline = [s.text for s in suggest(expense_table(), rc)]
        cands = generate(ctx, Target("Sheet1", *rc))
        engine = [c.formula for c in rule_order(cands) if c.features["in_rules"]]
        assert engine == baseline, rc
    assert baseline[:2] == ["=B4+C4", "=SUM(D2:D3)"]  # D4: D3 filled down, then C4 right


def test_spread_keeps_evenly_spaced_items_in_order_and_all_without_a_cap():
    assert spread(list(range(10)), 4) == [0, 2, 5, 7]
    assert spread(list(range(3)), 5) == [0, 1, 2] == spread(list(range(3)), None)
    assert spread(list(range(3)), 0) == []
