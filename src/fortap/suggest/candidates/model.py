"""Model candidates: a fine-tuned formula-prediction model's ranked formulas for the target cell.

A thin adapter over `fortap.tasks.formula_prediction.predictor.FormulaPredictor`, which reads
one table, as `fortap ingest` and `fortap finetune formula-prediction` see it. The suggestion
engine reads whole sheets, so the target's sheet is cut into table regions with the project's
detector (`fortap.table.regions.find_regions`, once per sheet on the sheet as read, kept on the
`BookContext`: only where a table ends may depend on a hidden cell being filled), and the
region holding the target is built into a `Table` with its header rows, columns and trees
(`fortap.table.build_table`) from a copy of the region in which the hidden cells (in the
new-formula setting the target's dragged block) are empty but keep their formatting, and the
target is what fine-tuning shows of a target without its gold (a formula cell of kind number,
its own style, no value and no formula text): on the cells fine-tuning saw, the input is the
same, token for token and format for format. An empty target within `REACH` rows below or
columns right of a region (a total row or column not written yet) joins that region; a target
in no region and beside none (or past the first 256 rows or columns of a long table, where the
detector cuts it) gets no model candidates.

The predictor's formulas (`FormulaPredictor.predict`: only formulas Excel accepts as they are,
never one referring to the target) become candidates in its order. The reason names the rank,
counted before dropping ("model (beam rank 2)", or for a sheet-setting model "model (copy of
D4, rank 1)" and "model (rank 2)"); the features (`FEATURES`, all named `model_*`) carry it
and the log-probabilities: a formula another source proposes too takes them into that
source's candidate, where a ranker trained without the model ignores them (features such as
`land_*` would change what it sees of that candidate, so the model source adds none).

`ModelSource.load` reads the model once (`FormulaPredictor.load`); a folder that is not a
model gives one `FortapError`. Per call: one table build, one encoder pass over at most
`max_seq_len` tokens, a beam of 5 and, with a copy head, one score per shown formula
(`bench/suggest_model.py` measures it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from fortap.encoding.example import Example
from fortap.sheet.model import Cell, Region
from fortap.suggest.candidates.base import MODEL_SOURCE, Candidate
from fortap.suggest.context import BookContext, Place, Target
from fortap.table.detect import DEFAULT_TABLES, build_table
from fortap.table.model import Table
from fortap.table.regions import find_regions
from fortap.tasks.formula_prediction.predictor import FormulaPredictor, Prediction

REACH = 2  # an empty target this many rows below / columns right of a table joins it
# The target as fine-tuning shows its targets, minus what the gold gives: a formula cell (the
# format vector's formula flag) of kind number (most targets' kind; constant, so it tells
# nothing) with its own style, whose formula text and value are never read (`[FORMULA]` tag).
UNKNOWN_FORMULA = "="
TARGET_KIND = "number"


@dataclass
class ModelSource:
    """The candidate source over a loaded `FormulaPredictor` (a `base.Source`)."""

    name: ClassVar[str] = MODEL_SOURCE
    needs_formulas: ClassVar[bool] = False  # it proposes in every setting, the paper's too
    FEATURES: ClassVar[tuple[str, ...]] = ("model_rank", "model_logp", "model_range_logp")

    predictor: FormulaPredictor

    @classmethod
    def load(cls, folder: str | Path, beam: int = 5) -> ModelSource:
        """The model in `folder` (a model folder, or the fine-tuning run's output holding it
        in `model/`); `FortapError` when it is not one."""
        return cls(FormulaPredictor.load(folder, beam))

    @property
    def folder(self) -> Path:
        return self.predictor.folder

    def candidates(
        self, ctx: BookContext, target: Target, hidden: frozenset[Place]
    ) -> list[Candidate]:
        """The model's `Candidate`s for `target`, best first (see the module doc)."""
        table = table_at(ctx, target, hidden | {(target.sheet, target.row, target.col)})
        if table is None:
            return []
        cell = (target.row - table.region.top, target.col - table.region.left)
        found = self.predictor.predict(table, cell, self.predictor.decoding.top_k)
        return [self.candidate(p) for p in found]

    def example(
        self, ctx: BookContext, target: Target, hidden: frozenset[Place]
    ) -> tuple[Example, int] | None:
        """(the target's input, its 0-based cell index in it) as `candidates` builds it
        (`FormulaPredictor.example`); None when the target is in no table or does not fit."""
        table = table_at(ctx, target, hidden | {(target.sheet, target.row, target.col)})
        if table is None:
            return None
        return self.predictor.example(
            table, (target.row - table.region.top, target.col - table.region.left)
        )

    def candidate(self, p: Prediction) -> Candidate:
        """The `Candidate` of one of the predictor's formulas."""
        feats = dict(zip(self.FEATURES, (float(p.rank), p.logp, p.range_logp), strict=True))
        what = "" if p.copy_of is None else f"copy of {p.copy_of}, "
        where = "rank" if self.predictor.sheet_setting else "beam rank"
        return Candidate(p.formula, self.name, f"model ({what}{where} {p.rank})", feats)


def table_at(ctx: BookContext, target: Target, hidden: frozenset[Place]) -> Table | None:
    """The `Table` of the region holding `target` (grown to reach it when it lies just beside
    one), built with the `hidden` cells empty (formatting kept) and the target an unknown
    formula cell (see the module doc); None when there is none."""
    sheet = ctx.sheet(target.sheet).sheet
    found = _regions(ctx, target.sheet)
    at = next((t for t in found if t.region.contains(target.row, target.col)), None)
    region = None if at is None else at.region
    if at is None:
        at = next((t for t in found if _beside(t.region, target)), None)
        if at is None:
            return None
        r = at.region
        region = Region(r.top, r.left, max(r.bottom, target.row), max(r.right, target.col))
    assert region is not None
    cells = dict(_window(sheet, region))
    for name, r, c in hidden:
        if name == target.sheet and region.contains(r, c):
            old = cells.pop((r, c), None)
            if old is not None:
                cells[(r, c)] = Cell(style=old.style)
    style = sheet.cell(target.row, target.col).style
    cells[(target.row, target.col)] = Cell(None, TARGET_KIND, UNKNOWN_FORMULA, style=style)
    masked = dataclasses.replace(sheet, cells=cells)
    return build_table(masked, region, at.context, DEFAULT_TABLES.headers)


def _regions(ctx: BookContext, name: str) -> tuple:
    """The sheet's `TableRegion`s, found once per context."""
    found = ctx.regions.get(name)
    if found is None:
        found = find_regions(ctx.sheet(name).sheet, DEFAULT_TABLES.regions).tables
        ctx.regions[name] = found
    return found


def _beside(region: Region, target: Target) -> bool:
    below = region.left <= target.col <= region.right and 0 < target.row - region.bottom <= REACH
    right = region.top <= target.row <= region.bottom and 0 < target.col - region.right <= REACH
    return below or right


def _window(sheet, region: Region):
    """The non-empty cells of `sheet` inside `region`, by whichever is smaller to scan."""
    if len(sheet.cells) <= region.n_rows * region.n_cols:
        return ((rc, cell) for rc, cell in sheet.cells.items() if region.contains(*rc))
    return (
        ((r, c), sheet.cells[(r, c)])
        for r in range(region.top, region.bottom + 1)
        for c in range(region.left, region.right + 1)
        if (r, c) in sheet.cells
    )
