"""Book-wide copy candidates: the other sheets' formulas re-anchored to the target.

`sibling` only looks at the target's own address (or its labels) in other sheets; a workbook
with one sheet per region whose blocks sit a few rows apart, or a summary sheet built like a
detail sheet, holds the formula elsewhere. Every visible formula cell of the workbook's other
sheets is grouped by its `$`-aware R1C1 text (`BookIndex`, built once per workbook); the
`LIMIT` groups nearest to the target's address (on their own sheet) each give one candidate,
copied from that nearest member. Features: how many sheets and cells hold the R1C1, the
distance and direction of the nearest member, whether its sheet has the target sheet's size,
and what the copy's references land on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fortap.sheet.model import a1
from fortap.suggest.candidates.anchor import land, reanchor
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.candidates.copy import LAND_FEATURES, land_features
from fortap.suggest.context import BookContext, Place, Target

FEATURES = ("book_sheets", "book_log_n", "book_dist", "book_dr", "book_dc", "book_rank",
            "book_same_size", *LAND_FEATURES)  # fmt: skip
LIMIT = 30  # R1C1 groups of other sheets copied per target, nearest first
FAR = np.iinfo(np.int64).max


@dataclass(frozen=True)
class BookIndex:
    """Every formula cell of the workbook as arrays (sheet, row, col, book-wide R1C1 id)."""

    names: list[str]  # sheet index -> name
    sheet: np.ndarray  # (N,) sheet index
    rows: np.ndarray  # (N,)
    cols: np.ndarray  # (N,)
    local: np.ndarray  # (N,) index into that sheet's `SheetContext.cells`
    gid: np.ndarray  # (N,) book-wide R1C1 id
    sheets_of: np.ndarray  # (G,) how many sheets hold the R1C1
    where: dict[Place, int]  # (sheet, row, col) -> index


def book_index(ctx: BookContext) -> BookIndex:
    """The workbook's `BookIndex` (built on first use and kept on the context)."""
    if ctx.book_index is not None:
        return ctx.book_index
    names = ctx.sheet_names()
    ids: dict[str, int] = {}
    parts: list[tuple[int, int, int, int, int]] = []
    for s, name in enumerate(names):
        sc = ctx.sheets[name]
        for i, ((r, c), text) in enumerate(zip(sc.cells, (sc.r1c1s[g] for g in sc.group),
                                              strict=True)):  # fmt: skip
            parts.append((s, r, c, i, ids.setdefault(text, len(ids))))
    arr = np.array(parts, np.int64).reshape(-1, 5)  # (N, 5)
    pairs = np.unique(arr[:, [4, 0]], axis=0)  # (distinct (gid, sheet), 2)
    index = BookIndex(
        names=names,
        sheet=arr[:, 0],
        rows=arr[:, 1],
        cols=arr[:, 2],
        local=arr[:, 3],
        gid=arr[:, 4],
        sheets_of=np.bincount(pairs[:, 0], minlength=len(ids)),
        where={(names[s], r, c): k for k, (s, r, c, _, _) in enumerate(parts)},
    )
    ctx.book_index = index
    return index


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place], limit: int = LIMIT):
    """Book-wide copy `Candidate`s for `target`, nearest R1C1 group first."""
    if len(ctx.sheets) < 2:
        return []
    ix = book_index(ctx)
    visible = ix.sheet != ix.names.index(target.sheet)  # (N,)
    for place in hidden:
        k = ix.where.get(place)
        if k is not None:
            visible[k] = False
    if not visible.any():
        return []
    dist = np.abs(ix.rows - target.row) + np.abs(ix.cols - target.col)  # (N,)
    dist = np.where(visible, dist, FAR)
    n_groups = len(ix.sheets_of)
    best = np.full(n_groups, FAR, np.int64)  # (G,)
    np.minimum.at(best, ix.gid, dist)
    size = np.bincount(ix.gid[visible], minlength=n_groups)  # (G,)
    order = np.argsort(best, kind="stable")[:limit]
    own = ctx.sheets[target.sheet].sheet
    spot = (target.sheet, target.row, target.col)
    out = []
    for rank, g in enumerate(order):
        if best[g] == FAR:
            break
        members = np.flatnonzero((ix.gid == g) & visible)  # (n,)
        near = int(members[np.argmin(dist[members])])
        name = ix.names[ix.sheet[near]]
        sc = ctx.sheets[name]
        copy = reanchor(sc.formulas[int(ix.local[near])], (target.row, target.col))
        if copy is None:
            continue
        r, c = int(ix.rows[near]), int(ix.cols[near])
        feats = {
            "book_sheets": float(ix.sheets_of[g]),
            "book_log_n": math.log1p(int(size[g])),
            "book_dist": float(best[g]),
            "book_dr": float(r - target.row),
            "book_dc": float(c - target.col),
            "book_rank": float(rank),
            "book_same_size": float((sc.sheet.n_rows, sc.sheet.n_cols) == (own.n_rows, own.n_cols)),
            **land_features(land(ctx, target.sheet, copy.refs, spot, hidden)),
        }
        reason = f"as in '{name}'!{a1(r, c)}, moved to this cell"
        out.append(Candidate(copy.text, "book", reason, feats))
    return out


SOURCE = SourceFunction("book", needs_formulas=True, FEATURES=FEATURES, candidates=candidates)
