"""Features shared by every candidate of a target, the header words, and the fixed rule order.

The *labels* of a target are the text of its row (the nearest text cell to its left) and of its
column (the nearest text cell above, within `LOOK` cells). Their words ("Total", "Average",
"Change", "%", ...) say what kind of formula a cell wants; they are query features (the same
for every candidate of a target) that the ranker crosses with each candidate's own features.
Hidden cells never give a label, and nothing here reads the target cell.

`QUERY_FEATURES` are the query features' names. `rule_positions`, a step of merging the
candidates, adds `RULE_FEATURES`: `rule_pos`, each candidate's place in the fixed rule order the
ranker is measured against (`formula.fill_rule`: nearest-formula fill first, then AutoSum,
Excel's side first; candidates outside the rules come after, in generation order), and
`in_rules`, whether it is in the rules at all.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

from fortap.formula.fill_rule import rule_key
from fortap.suggest.context import BookContext, Place, Target

LOOK = 30
# header word -> its pattern (lower-case label text)
WORDS = {
    "total": r"\btotals?\b|\bsum\b|\bsubtotal",
    "average": r"\baverage\b|\bavg\b|\bmean\b",
    "change": r"\bchange\b|\bdiff|\bdelta\b|\bincrease\b|\bdecrease\b",
    "percent": r"%|\bpercent|\bpct\b|\bshare\b|\bproportion\b",
    "variance": r"\bvariance\b|\bvar\b",
    "net": r"\bnet\b|\bbalance\b",
    "growth": r"\bgrowth\b|\brate\b",
    "ratio": r"\bratio\b|\bper\b",
    "count": r"\bcount\b|\bnumber of\b|\bno\.",
    "extreme": r"\bmax|\bmin|\bhighest\b|\blowest\b",
}
_PATTERNS = {word: re.compile(p) for word, p in WORDS.items()}
_SURROUNDINGS = ("q_up_number", "q_up_text", "q_left_number", "q_left_text", "q_log_formulas",
                 "q_row", "q_col")  # fmt: skip
QUERY_FEATURES = (*(f"row_{w}" for w in WORDS), *(f"col_{w}" for w in WORDS), *_SURROUNDINGS)
RULE_FEATURES = ("rule_pos", "in_rules")


def labels(ctx: BookContext, target: Target, hidden: frozenset[Place]) -> tuple[str, str]:
    """(row label, column label) of the target: nearest visible text to the left / above."""
    return labels_at(ctx.sheets[target.sheet], target.row, target.col, hidden)


def labels_at(sc, row: int, col: int, hidden: frozenset[Place]) -> tuple[str, str]:
    """(row label, column label) of any cell of `sc` (a `SheetContext`)."""
    name = sc.sheet.name

    def first_text(spots) -> str:
        for r, c in spots:
            if (name, r, c) in hidden:
                continue
            cell = sc.sheet.cell(r, c)
            if cell.kind == "text" and str(cell.value).strip():
                return str(cell.value).strip().lower()
        return ""

    left = first_text((row, c) for c in range(col - 1, -1, -1))
    above = first_text((r, col) for r in range(row - 1, max(row - LOOK, 0) - 1, -1))
    return left, above


def words_of(label: str) -> set[str]:
    return {word for word, p in _PATTERNS.items() if p.search(label)}


def query_features(
    ctx: BookContext, target: Target, hidden: frozenset[Place], formulas_seen: bool = True
) -> dict:
    """Features of the target's surroundings, the same for all its candidates; without
    `formulas_seen` (the paper setting) the count of the sheet's formulas is 0."""
    left, above = labels(ctx, target, hidden)
    row_words, col_words = words_of(left), words_of(above)
    sc = ctx.sheets[target.sheet]
    feats = {f"row_{w}": float(w in row_words) for w in WORDS}
    feats |= {f"col_{w}": float(w in col_words) for w in WORDS}
    up = _kind(ctx, target, hidden, -1, 0)
    lf = _kind(ctx, target, hidden, 0, -1)
    visible = len(sc.cells) - _hidden_formulas(sc, target.sheet, hidden) if formulas_seen else 0
    values = (
        float(up == "number"),
        float(up == "text"),
        float(lf == "number"),
        float(lf == "text"),
        math.log1p(visible) if formulas_seen else 0.0,
        float(target.row),
        float(target.col),
    )
    return feats | dict(zip(_SURROUNDINGS, values, strict=True))


def _hidden_formulas(sc, sheet: str, hidden: frozenset[Place]) -> int:
    """How many formula cells of the sheet are hidden (the target's own formula included)."""
    return sum(1 for h, r, c in hidden if h == sheet and (r, c) in sc.index)


def _kind(ctx: BookContext, target: Target, hidden, dr: int, dc: int) -> str:
    r, c = target.row + dr, target.col + dc
    if r < 0 or c < 0 or (target.sheet, r, c) in hidden:
        return "empty"
    return ctx.sheets[target.sheet].kind(r, c)


def rule_positions(cands: Sequence) -> list:
    """`cands` with `RULE_FEATURES` set: their place in the rule order (`fill_rule.rule_key`
    over the copies' `fill_order` and the AutoSums' `autosum_order`, then generation order;
    99 outside the rules) and whether they are in the rules."""

    def key(i: int) -> tuple[int, float, int]:
        f = cands[i].features
        return (*rule_key(f.get("fill_order"), f.get("autosum_order")), i)

    order = sorted(range(len(cands)), key=key)
    out = list(cands)
    for pos, i in enumerate(order):
        ruled = key(i)[0] < 2
        values = (float(pos if ruled else 99), float(ruled))
        feats = {**cands[i].features, **dict(zip(RULE_FEATURES, values, strict=True))}
        out[i] = replace(cands[i], features=feats)
    return out


def rule_order(cands: Sequence) -> list:
    """Candidates in the fixed rule order (`rule_pos`, then generation order)."""
    return [
        cands[i]
        for i in sorted(range(len(cands)), key=lambda i: (cands[i].features["rule_pos"], i))
    ]
