"""Synthesised candidates: the formulas a dragged block's values obey (`fortap.synthesis`).

A thin source over `synthesis.synthesise`: the target's sheet as a grid of numbers (built once per
sheet), its hidden cells read as empty, and each template found placed at the target. It reads
no formula, so it proposes in every setting, the paper's among them. Its top `PLUS` templates
are also proposed in the Lotus habit `=+...` (36 % of the kept test formulas of the visible
workbooks are written so; nothing visible in the paper setting says which workbook does, but
a workbook converted from a legacy format is a cue, `syn_legacy`).

Features: the anchors it explains and tried, the cells of its block it reproduces, the nearest
explained anchor, its size, references and reach, its family, how many rivals explain as many
anchors, whether the block runs down a column, and the `=+` writing.
"""

from __future__ import annotations

import math

from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.context import BookContext, Place, Target
from fortap.synthesis import Grid, SynthConfig, synthesise
from fortap.synthesis.search import ORDER

FEATURES = ("syn_support", "syn_anchors", "syn_share", "syn_log_block", "syn_near", "syn_size",
            "syn_refs", "syn_log_reach", "syn_family", "syn_log_rivals", "syn_col", "syn_plus",
            "syn_legacy")  # fmt: skip
CONFIG = SynthConfig()
PLUS = 3  # templates also proposed as `=+...`
LEGACY = (".xls", ".wk1", ".wks", ".123", ".ods")


def grid_of(sc) -> Grid | None:
    """The sheet's `synthesis.Grid`, built once per `SheetContext`."""
    if not sc.grid_built:
        sc.grid, sc.grid_built = Grid.of(sc.sheet), True
    return sc.grid  # type: ignore[return-value]


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place]) -> list[Candidate]:
    grid = grid_of(ctx.sheets[target.sheet])
    if grid is None:
        return []
    mine = frozenset((r, c) for s, r, c in hidden if s == target.sheet)
    found = synthesise(grid, target.row, target.col, mine, CONFIG)
    source = (ctx.book.converted_from or str(ctx.book.path or "")).lower()
    legacy = float(source.endswith(LEGACY))
    out = []
    for i, f in enumerate(found):
        feats = {
            "syn_support": float(f.support),
            "syn_anchors": float(f.anchors),
            "syn_share": f.support / max(f.anchors, 1),
            "syn_log_block": math.log1p(f.block),
            "syn_near": float(f.near),
            "syn_size": float(f.size),
            "syn_refs": float(f.refs),
            "syn_log_reach": math.log1p(f.reach),
            "syn_family": float(ORDER.index(f.family)),
            "syn_log_rivals": math.log(f.rivals),
            "syn_col": float(f.axis == "col"),
            "syn_plus": 0.0,
            "syn_legacy": legacy,
        }
        out.append(Candidate(f.formula, "synth", f.reason, feats))
        if i < PLUS:
            plus = "=+" + f.formula[1:]
            out.append(Candidate(plus, "synth", f.reason, feats | {"syn_plus": 1.0}))
    return out


SOURCE = SourceFunction("synth", needs_formulas=False, FEATURES=FEATURES, candidates=candidates)
