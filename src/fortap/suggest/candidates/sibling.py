"""Sibling candidates: the formula at the same place in the workbook's other sheets.

Workbooks often hold one sheet per month, region or scenario with the same layout. For each
other sheet, two places count as "the same": the same address, and the cell whose row and
column labels (`features.labels`) equal the target's. The formula found there is re-anchored to
the target as a copy (same address: unchanged text). Features say how alike the two sheets are
(same used size, same labels at the target's place) and how many sheets agree.
"""

from __future__ import annotations

from fortap.suggest.candidates.anchor import land, reanchor
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.candidates.copy import LAND_FEATURES, land_features
from fortap.suggest.context import BookContext, Place, SheetContext, Target
from fortap.suggest.features import labels_at

FEATURES = ("sib_same_address", "sib_same_size", "sib_labels_match", "sib_sheets",
            *LAND_FEATURES)  # fmt: skip
MAX_SHEETS = 60  # sheets looked at per target (workbooks with hundreds of sheets stay fast)
MAX_INDEXED = 20_000  # sheets with more formula cells are matched by address only


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place]):
    own = ctx.sheets[target.sheet]
    here = labels_at(own, target.row, target.col, hidden)
    found: dict[str, tuple[Candidate, int]] = {}
    for name in ctx.sheet_names()[: MAX_SHEETS + 1]:
        if name == target.sheet:
            continue
        sc = ctx.sheets[name]
        places = []
        if (target.row, target.col) in sc.index:
            places.append(((target.row, target.col), "same address"))
        if here[0] and here[1]:
            at = _header_index(sc).get(here)
            if at is not None and at != (target.row, target.col):
                places.append((at, "same row and column labels"))
        for at, how in places:
            copy = reanchor(sc.formulas[sc.index[at]], (target.row, target.col))
            if copy is None:
                continue
            if copy.text in found:
                cand, n = found[copy.text]
                found[copy.text] = (cand, n + 1)
                continue
            spot = (target.sheet, target.row, target.col)
            feats = {
                "sib_same_address": float(at == (target.row, target.col)),
                "sib_same_size": float(
                    (sc.sheet.n_rows, sc.sheet.n_cols) == (own.sheet.n_rows, own.sheet.n_cols)
                ),
                "sib_labels_match": float(
                    bool(here[0]) and labels_at(sc, *at, frozenset()) == here
                ),
                **land_features(land(ctx, target.sheet, copy.refs, spot, hidden)),
            }
            reason = f"{how} in sheet '{name}'"
            found[copy.text] = (Candidate(copy.text, "sibling", reason, feats), 1)
    out = []
    for cand, n in found.values():
        out.append(Candidate(cand.formula, cand.source, cand.reason,
                             {**cand.features, "sib_sheets": float(n)}))  # fmt: skip
    return out


def _header_index(sc: SheetContext) -> dict[tuple[str, str], tuple[int, int]]:
    """(row label, column label) -> the first formula cell with those labels (built once)."""
    index = sc.header_index
    if index is None:
        index = {}
        if len(sc.cells) <= MAX_INDEXED:
            for r, c in sc.cells:
                key = labels_at(sc, r, c, frozenset())
                if key[0] and key[1]:
                    index.setdefault(key, (r, c))
        sc.header_index = index
    return index


SOURCE = SourceFunction("sibling", needs_formulas=True, FEATURES=FEATURES, candidates=candidates)
