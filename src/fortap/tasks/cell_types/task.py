"""The cell-type task's registry entry (`TASK`)."""

from __future__ import annotations

from fortap.tasks.base import Task
from fortap.tasks.cell_types.config import SHORTHANDS, CellTypesRunConfig
from fortap.tasks.cell_types.model import CellTypeModel
from fortap.tasks.cell_types.run import check_folder, run_evaluate, run_finetune

TASK = Task(
    name="cell-types",
    summary="type every non-empty cell (metadata, notes, data, left/top attribute, derived)",
    config=CellTypesRunConfig,
    shorthands=SHORTHANDS,
    model=CellTypeModel,
    finetune=run_finetune,
    evaluate=run_evaluate,
    check=check_folder,
)
