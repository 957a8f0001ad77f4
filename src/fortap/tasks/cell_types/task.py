"""The cell-type task's registry entry (`TASK`)."""

from __future__ import annotations

from fortap.tasks.base import Task
from fortap.tasks.cell_types.config import SHORTHANDS, CellTypesRunConfig
from fortap.tasks.cell_types.examples import table_windows
from fortap.tasks.cell_types.metrics import scores
from fortap.tasks.cell_types.model import CellTypeModel
from fortap.tasks.cell_types.run import run_evaluate, run_finetune

TASK = Task(
    name="cell-types",
    summary="type every non-empty cell (metadata, notes, data, left/top attribute, derived)",
    config=CellTypesRunConfig,
    shorthands=SHORTHANDS,
    examples=table_windows,
    model=CellTypeModel,
    metrics=scores,
    finetune=run_finetune,
    evaluate=run_evaluate,
)
