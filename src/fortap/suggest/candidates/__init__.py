"""Candidate formulas for a target cell, from the sources below, each a small module.

- `copy`: every formula of the target's sheet re-anchored to it (one per distinct R1C1);
- `verbatim`: the sheet's other formulas as written (not re-anchored), one per distinct text;
- `keyed`: a neighbour in the target's column (row) whose text constants hold its row's
  (column's) label, copied with the target's label in their place;
- `book`: formulas of the workbook's other sheets re-anchored to the target, one per R1C1;
- `sibling`: the formula at the same place in other sheets of the workbook (same address,
  or same row and column labels);
- `template`: aggregates of the numbers above/left, and differences, ratios and changes of the
  two neighbouring rows/columns;
- `induced`: formulas whose pattern computes the values of numbers next to the target (a
  dragged block seen through its values);
- `echo`: references to the cell whose value the target's neighbours repeat (`=A1` dragged,
  `=$E$2` down a column), seen through values alone;
- `common`: formulas that many training workbooks write, in R1C1, moved to the target
  (`common.CommonTable`, learnt with the ranker; with `induced` and `echo`, the sources beyond
  templates in the paper setting);
- `model`: the formula-prediction model's beam, when a model is given (`model.ModelSource`,
  loaded once by the caller); it comes last, in beam order.

`generate` merges them by formula text (every source prints through the same printer): a formula several sources
propose is one candidate carrying every source's features and a flag per source. A formula
the model proposes too keeps the first source's name and reason, with "; also model (beam
rank i)" added to the reason. Features never read the target cell itself or any hidden cell:
those count as empty and formula-less.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fortap.suggest.context import BookContext, Place, Target

SETTINGS = ("sheet", "new-formula", "paper")
SOURCES = ("copy", "verbatim", "keyed", "book", "sibling", "template", "induced", "echo",
           "common", "model")  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    """One suggestion before ranking."""

    formula: str  # Excel A1 text with a leading "=", `$` kept as the source had them
    source: str  # one of SOURCES
    reason: str  # one line a user reads: "as in B3:B9, 7 cells filled down"
    features: Mapping[str, float]  # for the ranker; never derived from the target cell's content


def generate(
    ctx: BookContext,
    target: Target,
    hidden: frozenset[Place] = frozenset(),
    setting: str = "sheet",
    model=None,
    common=None,
) -> list[Candidate]:
    """Every candidate for `target`, de-duplicated by formula text; cells in `hidden` (sheet, row,
    col) and the target itself are treated as empty and formula-less. In the `paper` setting no
    formula of the workbook is visible, so only templates, induction from values, echoes, the
    common formulas (and the model) propose, and no feature counts formulas. `model`: a loaded
    `model.ModelSource`, or None for no model candidates; `common`: the ranker's
    `common.CommonTable` (`Ranker.common`), or None for no common candidates."""
    from fortap.suggest.candidates import (
        book,
        copy,
        echo,
        induced,
        keyed,
        sibling,
        template,
        verbatim,
    )
    from fortap.suggest.candidates import common as common_source
    from fortap.suggest.features import query_features, rule_positions

    if setting not in SETTINGS:
        raise ValueError(f"generate: setting must be one of {SETTINGS}, got {setting!r}")
    ctx.sheet(target.sheet)  # unknown sheet -> FortapError
    hidden = hidden | {(target.sheet, target.row, target.col)}
    raw: list[Candidate] = []
    seen = setting != "paper"  # whether any formula of the workbook is visible
    if seen:
        raw += copy.candidates(ctx, target, hidden)
        raw += verbatim.candidates(ctx, target, hidden)
        raw += keyed.candidates(ctx, target, hidden)
        raw += book.candidates(ctx, target, hidden)
        raw += sibling.candidates(ctx, target, hidden)
    raw += template.candidates(ctx, target, hidden, formulas_seen=seen)
    raw += induced.candidates(ctx, target, hidden)
    raw += echo.candidates(ctx, target, hidden)
    if common is not None:
        raw += common_source.candidates(ctx, target, hidden, common)
    if model is not None:
        raw += model.candidates(ctx, target, hidden)
    query = query_features(ctx, target, hidden, formulas_seen=seen)
    merged: dict[str, Candidate] = {}
    for cand in raw:
        key = cand.formula.upper().replace(" ", "")  # sources print canonical text
        old = merged.get(key)
        if old is None:
            feats = {**query, **cand.features, f"src_{cand.source}": 1.0}
            merged[key] = Candidate(cand.formula, cand.source, cand.reason, feats)
        else:
            feats = {**cand.features, **old.features, f"src_{cand.source}": 1.0}
            reason = old.reason
            if cand.source == "model" and old.source != "model":
                reason = f"{reason}; also {cand.reason}"
            merged[key] = Candidate(old.formula, old.source, reason, feats)
    return rule_positions(list(merged.values()))
