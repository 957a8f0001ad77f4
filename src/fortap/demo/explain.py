"""The sentence the demo prints to say who wins formula prediction in the paper setting.

The model and the rules are scored on the same test examples, so equal formula top-1 means the
same number of formulas right: a tie, and the demo says so rather than naming a winner.
"""

from __future__ import annotations

from collections.abc import Mapping

PAPER, SHEET = "rules (paper)", "rules (sheet)"


def paper_setting_verdict(top1: Mapping[str, float]) -> str:
    """Who wins formula top-1 when no other formula is visible, and what the sheet rules reach.

    `top1` maps "model", "rules (paper)" and "rules (sheet)" to formula top-1 (0..1).
    """
    model, paper = top1["model"], top1[PAPER]
    if model == paper:
        who = "the model and the rules tie"
    else:
        who = "the model wins" if model > paper else "the rules win"
    return (
        f"in the paper setting (no other formula visible) {who}: model {model:.1%} vs rules "
        f"{paper:.1%} formula top-1; with the sheet's other formulas visible the rules reach "
        f"{top1[SHEET]:.1%}"
    )
