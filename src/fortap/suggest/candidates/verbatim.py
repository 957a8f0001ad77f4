"""Verbatim candidates: the sheet's other formulas as they are written, not re-anchored.

Some sheets hold the same A1 text in several cells whose R1C1 forms all differ: an annotation
sheet where `=A1` or `=C4` is typed wherever a value is quoted, a model that points many cells
at one input. Re-anchoring (`copy`) moves those references; this source keeps them. The
visible formula cells of the target's sheet are grouped by their written text (upper case, no
spaces; `text_groups`, built once per sheet); the `LIMIT` groups nearest to the target and the
`FREQUENT` most repeated others each give one candidate, printed from the nearest member's AST. When the text is
also a re-anchored copy, `generate` merges the two into one candidate carrying both sources'
features. Features: how many cells hold the text, the nearest one's distance and direction,
how many share the target's row and column, and what the references land on.
"""

from __future__ import annotations

import math

import numpy as np

from fortap.formula.printer import to_text
from fortap.sheet.model import a1
from fortap.suggest.candidates.anchor import land, refs_of
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.candidates.copy import LAND_FEATURES, land_features, nearest_groups
from fortap.suggest.context import BookContext, Place, SheetContext, Target

FEATURES = ("verb_n", "verb_log_n", "verb_dist", "verb_dr", "verb_dc", "verb_rank",
            "verb_frequent", "verb_in_row", "verb_in_col", "verb_has_ref",
            *LAND_FEATURES)  # fmt: skip
LIMIT = 40  # written texts proposed per target, nearest first
FREQUENT = 10  # and the most repeated texts (held by 2+ visible cells) beyond those
FAR = np.iinfo(np.int64).max


def text_groups(sc: SheetContext) -> tuple[np.ndarray, int]:
    """(per formula cell the index of its written text, number of texts); built once."""
    if sc.text_group is None:
        where: dict[str, int] = {}
        group = np.zeros(len(sc.cells), np.int64)  # (N,)
        for i, f in enumerate(sc.formulas):
            key = f.text.upper().replace(" ", "")
            group[i] = where.setdefault(key, len(where))
        sc.text_group = group
        sc.text_count = len(where)
    return sc.text_group, sc.text_count


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place], limit: int = LIMIT):
    """Verbatim `Candidate`s for `target`, nearest written text first."""
    sc = ctx.sheets[target.sheet]
    if not sc.cells:
        return []
    group, n_groups = text_groups(sc)
    near_groups = nearest_groups(sc, target, hidden, group, n_groups)
    if near_groups is None:
        return []
    visible, dist, best = near_groups
    size = np.bincount(group[visible], minlength=n_groups)  # (T,)
    order = np.argsort(best, kind="stable")[:limit]
    common = np.argsort(-size, kind="stable")
    common = common[(size[common] >= 2) & ~np.isin(common, order)][:FREQUENT]
    order = np.concatenate([order, common])
    spot = (target.sheet, target.row, target.col)
    out = []
    for rank, g in enumerate(order):
        if best[g] == FAR:
            break
        members = np.flatnonzero((group == g) & visible)  # (n,)
        near = int(members[np.argmin(dist[members])])
        formula = sc.formulas[near]
        text = to_text(formula.ast)
        refs = refs_of(formula.ast)
        r, c = sc.cells[near]
        feats = {
            "verb_n": float(size[g]),
            "verb_log_n": math.log1p(int(size[g])),
            "verb_dist": float(best[g]),
            "verb_dr": float(r - target.row),
            "verb_dc": float(c - target.col),
            "verb_rank": float(rank),
            "verb_frequent": float(rank >= limit),
            "verb_in_row": float((sc.rows[members] == target.row).sum()),
            "verb_in_col": float((sc.cols[members] == target.col).sum()),
            "verb_has_ref": float(bool(refs)),
            **land_features(land(ctx, target.sheet, refs, spot, hidden)),
        }
        reason = f"written as in {a1(r, c)}" + (f" and {size[g] - 1} more" if size[g] > 1 else "")
        out.append(Candidate(text, "verbatim", reason, feats))
    return out


SOURCE = SourceFunction("verbatim", needs_formulas=True, FEATURES=FEATURES, candidates=candidates)
