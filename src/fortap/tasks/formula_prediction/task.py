"""The formula-prediction task's registry entry (`TASK`)."""

from __future__ import annotations

from fortap.tasks.base import Task
from fortap.tasks.formula_prediction.config import SHORTHANDS, FormulaRunConfig
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.tasks.formula_prediction.predictor import FormulaPredictor
from fortap.tasks.formula_prediction.release import check_folder
from fortap.tasks.formula_prediction.run import run_evaluate, run_finetune
from fortap.tasks.model_folder import ENCODER_FILES, ENCODER_KIND, FolderKind

TASK = Task(
    name="formula-prediction",
    summary="predict the formula of an empty cell (sketch + ranges), beside rule baselines",
    config=FormulaRunConfig,
    shorthands=SHORTHANDS,
    model=FormulaPredictionModel,
    finetune=run_finetune,
    evaluate=run_evaluate,
    check=check_folder,
    folders=(FolderKind(ENCODER_KIND, ENCODER_FILES, FormulaPredictor.load),),
)
