"""The rule-based suggester: fill down / fill right re-anchored in R1C1, else AutoSum."""

from __future__ import annotations

import pytest

from fortap.tasks.formula_prediction.examples import formula_examples
from fortap.tasks.formula_prediction.rule_baseline import (
    dragged_block,
    evaluate_rules,
    fill_text,
    suggest,
)

from .expense_table import expense_table


def texts(suggestions):
    return [(s.text, s.source) for s in suggestions]


def test_fill_down_copies_the_cell_above_re_anchored():
    # D3: the nearest formula in its column is D2 (=B2+C2), copied one row down
    got = texts(suggest(expense_table(), (2, 3)))
    assert got[0] == ("=B3+C3", "fill:D2")
    assert ("=SUM(B3:C3)", "autosum:left") in got


def test_fill_right_when_the_column_has_nothing_near():
    # C4: the column has no other formula; the row has B4 (left wins a tie with D4)
    got = texts(suggest(expense_table(), (3, 2)))
    assert got[0] == ("=SUM(C2:C3)", "fill:B4")
    assert [source for _, source in got].count("autosum:above") == 0  # same key as fill:B4


def test_anchored_parts_stay_when_copied():
    table = expense_table(corner="=$B$2+B3")
    assert fill_text(table, (3, 3), (3, 2)) == "=$B$2+A3"


def test_paper_setting_can_only_autosum():
    got = texts(suggest(expense_table(), (3, 3), setting="paper"))
    assert got == [("=SUM(D2:D3)", "autosum:above"), ("=SUM(B4:C4)", "autosum:left")]


def test_dragged_block_and_hiding_it():
    table = expense_table()
    assert dragged_block(table, (1, 3)) == {(1, 3), (2, 3)}
    # =SUM(R[-2]C:R[-1]C) three times along row 4
    assert dragged_block(table, (3, 1)) == {(3, 1), (3, 2), (3, 3)}
    hidden = texts(suggest(table, (2, 3), hide_block=True))
    assert hidden[0] == ("=SUM(D1:D2)", "fill:D4")  # D4 copied one row up
    assert "=B3+C3" not in [text for text, _ in hidden]


def test_unknown_setting_is_rejected():
    with pytest.raises(ValueError, match="setting must be one of"):
        suggest(expense_table(), (1, 3), setting="book")


def test_rules_in_the_shared_harness(tokenizer):
    table = expense_table()
    examples = formula_examples(table, tokenizer)
    sheet, golds, guesses = evaluate_rules([table], examples, setting="sheet")
    # D2: nearest is D3 (below) =B3+C3 -> copied up gives =B2+C2; D3 from D2; B4 from C4;
    # C4 from B4; D4: column neighbour D3 copied down is =B4+C4 (wrong), AutoSum above right
    assert sheet["formula_top1"] == pytest.approx(4 / 5)
    assert sheet["formula_top5"] == 1.0
    paper, _, _ = evaluate_rules([table], examples, setting="paper")
    # AutoSum: D2 -> SUM(B2:C2) (wrong), B4/C4/D4 -> SUM above (right)
    assert paper["formula_top1"] == pytest.approx(3 / 5)
    assert paper["errors"]["wrong_sketch"] == pytest.approx(2 / 5)
