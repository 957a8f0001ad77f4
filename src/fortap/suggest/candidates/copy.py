"""Copy candidates: the sheet's formulas re-anchored to the target, one per distinct R1C1.

A spreadsheet is mostly dragged blocks, so the formula a cell needs is usually one its sheet
already holds, moved. Every visible formula cell of the target's sheet is grouped by its
`$`-aware R1C1 text (`BookContext`); the `limit` groups nearest to the target (Manhattan
distance of their nearest visible member) each give one candidate, copied from that nearest
member. The features say how the group sits around the target (size, distance and direction,
same row/column, whether the target continues the block or fills a gap in it, whether the
cells between are filled) and what the copy's references land on. A copy whose group holds a
cell the fill rule looks at (`formula.fill_rule`) carries that cell's place in its scan
(`fill_order`): the rule order's first step.
"""

from __future__ import annotations

import math

import numpy as np

from fortap.formula.fill_rule import fill_scan
from fortap.sheet.model import a1
from fortap.suggest.candidates.anchor import Land, land, reanchor
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.context import BookContext, Place, SheetContext, Target

LIMIT = 100  # R1C1 groups copied per target, nearest first (40 -> 400 adds ~2 points of recall)
LAND_FEATURES = ("land_cells", "land_numbers", "land_text", "land_empty", "land_self",
                 "land_other_sheet", "land_unknown")  # fmt: skip
FEATURES = ("copy_n", "copy_log_n", "copy_dist", "copy_dr", "copy_dc", "copy_rank", "copy_in_col",
            "copy_in_row", "copy_above", "copy_below", "copy_left", "copy_right",
            "copy_between_col", "copy_between_row", "copy_clear_path", "copy_sketch_len",
            "fill_order", *LAND_FEATURES)  # fmt: skip


def nearest_groups(sc: SheetContext, target: Target, hidden: frozenset[Place], group, n_groups):
    """For the sheet's visible formula cells grouped by `group` (N,) into `n_groups`: the
    visible mask (N,), each cell's distance to `target` (N,) and each group's nearest distance
    (n_groups,), int64 max where hidden; None when no formula cell is visible."""
    if not sc.cells:
        return None
    visible = visible_mask(sc, target.sheet, hidden)  # (N,)
    if not visible.any():
        return None
    far = np.iinfo(np.int64).max
    dist = np.abs(sc.rows - target.row) + np.abs(sc.cols - target.col)  # (N,)
    dist = np.where(visible, dist, far)
    best = np.full(n_groups, far, np.int64)  # (n_groups,)
    np.minimum.at(best, group, dist)
    return visible, dist, best


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place], limit: int = LIMIT):
    """Copy `Candidate`s for `target`, nearest group first."""
    sc = ctx.sheets[target.sheet]
    near_groups = nearest_groups(sc, target, hidden, sc.group, len(sc.r1c1s))
    if near_groups is None:
        return []
    visible, dist, best = near_groups
    order = np.argsort(best, kind="stable")[:limit]
    fill = fill_order(sc, target, hidden)
    spot = (target.sheet, target.row, target.col)
    out = []
    for rank, g in enumerate(order):
        if best[g] == np.iinfo(np.int64).max:
            break
        members = sc.group_cells[g]
        members = members[visible[members]]  # (n,)
        near = int(members[np.lexsort((sc.cols[members], sc.rows[members] > target.row,
                                       dist[members]))[0]])  # fmt: skip
        copy = reanchor(sc.formulas[near], (target.row, target.col))
        if copy is None:
            continue
        landed = land(ctx, target.sheet, copy.refs, spot, hidden)
        feats = _features(sc, target, hidden, members, near, rank, landed, visible)
        positions = [p for at, p in fill.items() if sc.group[sc.index[at]] == g]
        if positions:
            feats["fill_order"] = float(min(positions))
        out.append(Candidate(copy.text, "copy", _reason(sc, members, near), feats))
    return out


def visible_mask(sc: SheetContext, sheet: str, hidden: frozenset[Place]) -> np.ndarray:
    visible = np.ones(len(sc.cells), bool)
    for h_sheet, r, c in hidden:
        if h_sheet == sheet:
            i = sc.index.get((r, c))
            if i is not None:
                visible[i] = False
    return visible


def fill_order(sc: SheetContext, target: Target, hidden: frozenset[Place]) -> dict:
    """The visible formula cells the fill rule looks at (`fill_rule.fill_scan`) -> their
    position in its scan."""
    order: dict[tuple[int, int], int] = {}
    for at in fill_scan(target.row, target.col):
        if at in sc.index and (target.sheet, *at) not in hidden:
            order[at] = len(order)
    return order


def _features(sc, target, hidden, members, near, rank, landed: Land, visible) -> dict[str, float]:
    r, c = target.row, target.col
    rows, cols = sc.rows[members], sc.cols[members]
    g = sc.group[near]

    def member(at: tuple[int, int]) -> bool:
        i = sc.index.get(at)
        return i is not None and sc.group[i] == g and bool(visible[i])

    dr, dc = int(sc.rows[near]) - r, int(sc.cols[near]) - c
    in_col, in_row = cols == c, rows == r
    f = {
        "copy_n": float(len(members)),
        "copy_log_n": math.log1p(len(members)),
        "copy_dist": float(abs(dr) + abs(dc)),
        "copy_dr": float(dr),
        "copy_dc": float(dc),
        "copy_rank": float(rank),
        "copy_in_col": float(in_col.sum()),
        "copy_in_row": float(in_row.sum()),
        "copy_above": float(member((r - 1, c))),
        "copy_below": float(member((r + 1, c))),
        "copy_left": float(member((r, c - 1))),
        "copy_right": float(member((r, c + 1))),
        "copy_between_col": float(bool((rows[in_col] < r).any() and (rows[in_col] > r).any())),
        "copy_between_row": float(bool((cols[in_row] < c).any() and (cols[in_row] > c).any())),
        "copy_clear_path": float(_clear_path(sc, target, hidden, sc.cells[near])),
        "copy_sketch_len": float(len(sc.formulas[near].sketch)),
    }
    f.update(land_features(landed))
    return f


def land_features(landed: Land) -> dict[str, float]:
    """`LAND_FEATURES`: what a candidate's references land on (every source that moves a
    formula writes them)."""
    n = max(landed.cells, 1)
    values = (
        math.log1p(landed.cells),
        landed.numbers / n,
        landed.text / n,
        (landed.cells - landed.numbers - landed.text) / n,
        float(landed.self_ref),
        float(landed.other_sheet),
        float(landed.unknown),
    )
    return dict(zip(LAND_FEATURES, values, strict=True))


def _clear_path(sc: SheetContext, target: Target, hidden, src: tuple[int, int]) -> bool:
    """True when the source shares the target's row or column and every cell between them is
    visible and non-empty (the two sit in one table region), or when they are adjacent."""
    r, c = target.row, target.col
    if src[0] != r and src[1] != c:
        return False
    step_r = (src[0] > r) - (src[0] < r)
    step_c = (src[1] > c) - (src[1] < c)
    at = (r + step_r, c + step_c)
    for _ in range(60):
        if at == src:
            return True
        if (target.sheet, *at) in hidden or sc.sheet.cell(*at).is_empty:
            return False
        at = (at[0] + step_r, at[1] + step_c)
    return False


def _reason(sc: SheetContext, members: np.ndarray, near: int) -> str:
    n = len(members)
    if n == 1:
        return f"as in {a1(*sc.cells[near])}"
    rows, cols = sc.rows[members], sc.cols[members]
    top, left, bottom, right = int(rows.min()), int(cols.min()), int(rows.max()), int(cols.max())
    box = f"{a1(top, left)}:{a1(bottom, right)}"
    if left == right:
        return f"as in {box}, {n} cells filled down"
    if top == bottom:
        return f"as in {box}, {n} cells filled right"
    return f"as in {a1(*sc.cells[near])}, {n} cells of {box} share this formula"


SOURCE = SourceFunction("copy", needs_formulas=True, FEATURES=FEATURES, candidates=candidates)
