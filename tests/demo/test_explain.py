"""The demo's paper-setting sentence: a winner, or a tie when the counts are equal."""

from __future__ import annotations

from fortap.demo.explain import paper_setting_verdict


def top1(model: float, paper: float, sheet: float = 0.735) -> dict[str, float]:
    return {"model": model, "rules (paper)": paper, "rules (sheet)": sheet}


def test_equal_top1_is_a_tie():
    assert paper_setting_verdict(top1(4 / 83, 4 / 83)) == (
        "in the paper setting (no other formula visible) the model and the rules tie: model 4.8% "
        "vs rules 4.8% formula top-1; with the sheet's other formulas visible the rules reach 73.5%"
    )


def test_a_winner_is_named():
    assert "the rules win: model 4.8% vs rules 9.6%" in paper_setting_verdict(top1(4 / 83, 8 / 83))
    assert "the model wins: model 9.6% vs rules 4.8%" in paper_setting_verdict(top1(8 / 83, 4 / 83))
