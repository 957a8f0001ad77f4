"""The cell-type task's registry entry (`TASK`)."""

from __future__ import annotations

from fortap.tasks.base import Task
from fortap.tasks.cell_types.boosted_typer import BOOSTER
from fortap.tasks.cell_types.boosted_typer import KIND as BOOSTED
from fortap.tasks.cell_types.cell_typer import CellTyper
from fortap.tasks.cell_types.config import SHORTHANDS, CellTypesRunConfig
from fortap.tasks.cell_types.hybrid_typer import KIND as HYBRID
from fortap.tasks.cell_types.hybrid_typer import REDUCTION
from fortap.tasks.cell_types.model import CellTypeModel
from fortap.tasks.cell_types.run import check_folder, run_evaluate, run_finetune
from fortap.tasks.model_folder import ENCODER_FILES, ENCODER_KIND, FolderKind

TASK = Task(
    name="cell-types",
    summary="type every non-empty cell (metadata, notes, data, left/top attribute, derived)",
    config=CellTypesRunConfig,
    shorthands=SHORTHANDS,
    model=CellTypeModel,
    finetune=run_finetune,
    evaluate=run_evaluate,
    check=check_folder,
    folders=(
        FolderKind(ENCODER_KIND, ENCODER_FILES, CellTyper.load),
        FolderKind(BOOSTED, (BOOSTER,), CellTyper.load),
        FolderKind(HYBRID, (BOOSTER, REDUCTION), CellTyper.load),
    ),
)
