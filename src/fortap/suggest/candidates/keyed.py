"""Keyed candidates: a neighbour's formula whose text constants name its row's (or column's)
label, copied with the target's label in their place.

Some blocks differ from cell to cell only in a text constant taken from the row's label:
`=SUMIF(A:A,"North",C:C)` in the North row and `=SUMIF(A:A,"South",C:C)` in the South row, or a
data feed `=DDE("srv","topic","abc.LAST")` per ticker in column A. Re-anchoring cannot write
those, since each cell's R1C1 text is new. For the `LIMIT` nearest visible formula cells with a
text constant in the target's column (keyed by row labels) and in its row (keyed by column
labels): a text cell (2+ characters) of the source's row (column) whose text occurs in a
constant, case-insensitively, is a key, the longest first; the target's row (column) must hold
other text at the key's column (row), and that text replaces every occurrence, written in the
occurrence's case (upper, lower or as the label). References move as in `copy`. One candidate
per distinct text; features: distance, axis, how many constants changed, what the references
land on. Hidden cells are never read as labels.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from fortap.formula.nodes import Const, Node, map_leaves, walk
from fortap.sheet.model import a1
from fortap.suggest.candidates.anchor import land, reanchor_ast
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.candidates.copy import LAND_FEATURES, land_features, visible_mask
from fortap.suggest.context import BookContext, Place, SheetContext, Target

FEATURES = ("keyed_dist", "keyed_by_row", "keyed_rank", "keyed_changed", *LAND_FEATURES)
LIMIT = 6  # nearest keyed formula cells tried per axis
MIN_KEY = 2  # shortest label text used as a key
MAX_LABELS = 64  # text cells of one row / column tried as keys


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place]):
    """Keyed `Candidate`s for `target`, nearest source first."""
    sc = ctx.sheets[target.sheet]
    keyed = _keyed_cells(sc)
    if not len(keyed):
        return []
    visible = visible_mask(sc, target.sheet, hidden)[keyed]  # (K,)
    rows, cols = sc.rows[keyed], sc.cols[keyed]
    spot = (target.sheet, target.row, target.col)
    out, seen = [], set()
    for axis, same, offset in (("row", cols == target.col, np.abs(rows - target.row)),
                               ("col", rows == target.row, np.abs(cols - target.col))):  # fmt: skip
        pick = np.flatnonzero(same & visible)  # (n,)
        pick = pick[np.argsort(offset[pick], kind="stable")][:LIMIT]
        for rank, k in enumerate(pick):
            i = int(keyed[k])
            src = sc.cells[i]
            ast, changed = _rekey(sc.formulas[i].ast, _swap(sc, target, hidden, axis, src))
            if not changed:
                continue
            copy = reanchor_ast(ast, src, (target.row, target.col))
            if copy is None or copy.text.upper() in seen:
                continue
            seen.add(copy.text.upper())
            feats = {
                "keyed_dist": float(offset[k]),
                "keyed_by_row": float(axis == "row"),
                "keyed_rank": float(rank),
                "keyed_changed": float(changed),
                **land_features(land(ctx, target.sheet, copy.refs, spot, hidden)),
            }
            reason = f"as in {a1(*src)}, with this {'row' if axis == 'row' else 'column'}'s label"
            out.append(Candidate(copy.text, "keyed", reason, feats))
    return out


def _swap(sc: SheetContext, target: Target, hidden, axis: str, src: tuple[int, int]) -> dict:
    """{key: the target's label} for the labels of the source's row (`axis` "row") or column,
    where the target's row (column) holds other visible text at the same column (row)."""
    by_row, by_col = _labels(sc)
    keys = by_row.get(src[0], ()) if axis == "row" else by_col.get(src[1], ())
    swap = {}
    for at, key in keys:
        dst = (target.row, at) if axis == "row" else (at, target.col)
        if (target.sheet, *dst) in hidden or sc.kind(*dst) != "text":
            continue
        new = sc.sheet.cell(*dst).text.strip()
        if len(new) >= MIN_KEY and new.lower() != key.lower():
            swap[key] = new
    return swap


def _keyed_cells(sc: SheetContext) -> np.ndarray:
    """Indices of the sheet's formula cells holding a text constant; built once, one formula
    per R1C1 group (a group's cells share their constants: the R1C1 text holds them), so the
    dragged copies' trees are never built for it."""
    if sc.keyed_cells is None:
        has_text = np.array(
            [
                any(_is_text(n) for n in walk(sc.formulas[int(ids[0])].ast))
                for ids in sc.group_cells
            ],
            bool,
        )  # (G,)
        sc.keyed_cells = (
            np.flatnonzero(has_text[sc.group]) if len(has_text) else np.zeros(0, np.int64)
        )
    return sc.keyed_cells  # (K,)


def _labels(sc: SheetContext) -> tuple[dict, dict]:
    """Text cells usable as keys: row -> [(col, text)], col -> [(row, text)], longest first."""
    if sc.label_index is None:
        by_row: dict[int, list] = {}
        by_col: dict[int, list] = {}
        for (r, c), cell in sc.sheet.cells.items():
            text = cell.text.strip() if cell.kind == "text" and cell.formula is None else ""
            if len(text) >= MIN_KEY:
                by_row.setdefault(r, []).append((c, text))
                by_col.setdefault(c, []).append((r, text))
        for index in (by_row, by_col):
            for at, keys in index.items():
                index[at] = sorted(keys, key=lambda k: -len(k[1]))[:MAX_LABELS]
        sc.label_index = (by_row, by_col)
    return sc.label_index


def _is_text(node: Node) -> bool:
    return isinstance(node, Const) and node.kind == "str" and len(str(node.value)) >= MIN_KEY


def _rekey(node: Node, swap: dict[str, str]) -> tuple[Node, int]:
    """`node` with every text constant that holds a key rewritten; (tree, constants changed)."""
    changed = []

    def rewrite(leaf: Node) -> Node:
        if not _is_text(leaf):
            return leaf
        text = str(leaf.value)  # type: ignore[union-attr]
        for key, new in swap.items():  # longest key first (see `_labels`)
            pattern = re.compile(re.escape(key), re.IGNORECASE)
            if pattern.search(text):
                changed.append(key)
                return Const("str", pattern.sub(functools.partial(_cased, key=key, new=new), text))
        return leaf

    if not swap:
        return node, 0
    out = map_leaves(node, rewrite)
    return out, len(changed)


def _cased(match: re.Match, key: str, new: str) -> str:
    """`new` in the case the constant wrote the key: upper, lower, or as the label is."""
    found = match.group(0)
    if found == key:
        return new
    if found.isupper():
        return new.upper()
    if found.islower():
        return new.lower()
    return new


SOURCE = SourceFunction("keyed", needs_formulas=True, FEATURES=FEATURES, candidates=candidates)
