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
- `synth`: formulas that the values of the target's block obey, found by `fortap.synthesis`
  (up to four references at any distance in its row or column, partial runs, constants and
  fixed cells, `ROUND`, `ABS`, `MAX`/`MIN`, the zero guard), also written `=+...`;
- `echo`: references to the cell whose value the target's neighbours repeat (`=A1` dragged,
  `=$E$2` down a column), seen through values alone;
- `common`: formulas that many training workbooks write, in R1C1, moved to the target
  (`common.CommonSource`, built with the ranker's `CommonTable`; with `induced` and `echo`,
  the sources beyond templates in the paper setting);
- `relational`: lookups (`VLOOKUP`, `INDEX`/`MATCH`, `XLOOKUP`) and conditional aggregates
  (`SUMIF(S)`, `COUNTIF(S)`, `AVERAGEIF(S)`) into another table holding a key of the target's row;
- `model`: the formula-prediction model's formulas, when a model is given (`model.ModelSource`,
  loaded once by the caller); it comes last, in its own order.

Each source follows `base.Source`: a name, whether it needs visible formulas, the features it
declares (`FEATURES`) and `candidates(ctx, target, hidden)`. `SOURCES` are those that need no
run-time object, in generation order; `generate` adds the common and model sources after
them when their object is given. It merges the candidates by formula text (every source
prints through the same printer): a formula several sources propose is one candidate carrying
every source's features and a flag per source (`src_<name>`), with the target's query
features (`features.QUERY_FEATURES`) and its place in the rule order
(`features.RULE_FEATURES`). A formula the model proposes too keeps the first source's name and
reason, with "; also model (beam rank i)" added to the reason. Features never read the target
cell itself or any hidden cell: those count as empty and formula-less. `declared` is the one
list of the features a ranker trained with given sources has.
"""

from __future__ import annotations

from collections.abc import Iterable

from fortap.suggest.candidates import (
    book,
    copy,
    echo,
    induced,
    keyed,
    relational,
    sibling,
    synth,
    template,
    verbatim,
)  # fmt: skip
from fortap.suggest.candidates.base import Candidate, Source
from fortap.suggest.candidates.common import CommonSource, CommonTable
from fortap.suggest.context import BookContext, Place, Target
from fortap.suggest.features import QUERY_FEATURES, RULE_FEATURES, query_features, rule_positions

SETTINGS = ("sheet", "new-formula", "paper")
SOURCES: tuple[Source, ...] = (
    copy.SOURCE, verbatim.SOURCE, keyed.SOURCE, book.SOURCE, sibling.SOURCE, template.SOURCE,
    induced.SOURCE, synth.SOURCE, echo.SOURCE, relational.SOURCE,
)  # fmt: skip
FLAG = "src_"  # `src_<name>`: the merge step's flag of each source that proposed a formula


def active(
    setting: str, model: Source | None = None, common: CommonTable | None = None
) -> list[Source]:
    """The sources that propose in `setting`, in generation order: in the paper setting no
    formula of the workbook is visible, so only those that need none, with `template.UNSEEN`
    (no formula closes a block); then the common source and the model when given."""
    seen = setting != "paper"
    out = [s for s in SOURCES if seen or not s.needs_formulas]
    if not seen:
        out = [template.UNSEEN if s is template.SOURCE else s for s in out]
    if common is not None:
        out.append(CommonSource(common))
    if model is not None:
        out.append(model)
    return out


def source_names(model: Source | None = None) -> tuple[str, ...]:
    """Every source's name in generation order (the model's when one is given)."""
    return tuple(s.name for s in (*SOURCES, CommonSource, *([model] if model is not None else [])))


def declared(sources: Iterable[Source]) -> dict[str, str]:
    """Feature -> who declares it ("query", "merge" or a source's name): the features of a
    ranker trained with `sources`, and every feature their candidates can carry."""
    out = dict.fromkeys(QUERY_FEATURES, "query") | dict.fromkeys(RULE_FEATURES, "merge")
    for source in sources:
        out.setdefault(FLAG + source.name, "merge")
        for name in source.FEATURES:
            out.setdefault(name, source.name)
    return out


def generate(
    ctx: BookContext,
    target: Target,
    hidden: frozenset[Place] = frozenset(),
    setting: str = "sheet",
    model: Source | None = None,
    common: CommonTable | None = None,
) -> list[Candidate]:
    """Every candidate for `target`, de-duplicated by formula text; cells in `hidden` (sheet, row,
    col) and the target itself are treated as empty and formula-less. In the `paper` setting no
    formula of the workbook is visible, so only templates, induction and synthesis from values, echoes, the
    common formulas (and the model) propose, and no feature counts formulas. `model`: a loaded
    `model.ModelSource`, or None for no model candidates; `common`: the ranker's
    `common.CommonTable` (`Ranker.common`), or None for no common candidates."""
    if setting not in SETTINGS:
        raise ValueError(f"generate: setting must be one of {SETTINGS}, got {setting!r}")
    ctx.sheet(target.sheet)  # unknown sheet -> FortapError
    hidden = hidden | {(target.sheet, target.row, target.col)}
    raw: list[Candidate] = []
    for source in active(setting, model, common):
        raw += source.candidates(ctx, target, hidden)
    query = query_features(ctx, target, hidden, formulas_seen=setting != "paper")
    merged: dict[str, Candidate] = {}
    for cand in raw:
        key = cand.formula.upper().replace(" ", "")  # sources print canonical text
        old = merged.get(key)
        if old is None:
            feats = {**query, **cand.features, FLAG + cand.source: 1.0}
            merged[key] = Candidate(cand.formula, cand.source, cand.reason, feats)
        else:
            feats = {**cand.features, **old.features, FLAG + cand.source: 1.0}
            reason = old.reason
            if model is not None and cand.source == model.name != old.source:
                reason = f"{reason}; also {cand.reason}"
            merged[key] = Candidate(old.formula, old.source, reason, feats)
    return rule_positions(list(merged.values()))
