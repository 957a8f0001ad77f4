"""The formula-prediction task's registry entry (`TASK`)."""

from __future__ import annotations

from fortap.evaluation.metrics import formula_metrics
from fortap.evaluation.report import write_report
from fortap.tasks.base import Task
from fortap.tasks.formula_prediction.config import SHORTHANDS, FormulaRunConfig
from fortap.tasks.formula_prediction.evaluate import evaluate_sketch_prior
from fortap.tasks.formula_prediction.examples import formula_examples
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.tasks.formula_prediction.rule_baseline import evaluate_rules
from fortap.tasks.formula_prediction.run import run_evaluate, run_finetune

TASK = Task(
    name="formula-prediction",
    summary="predict the formula of an empty cell (sketch + ranges), beside rule baselines",
    config=FormulaRunConfig,
    shorthands=SHORTHANDS,
    examples=formula_examples,
    model=FormulaPredictionModel,
    metrics=formula_metrics,
    baselines={"rules": evaluate_rules, "sketch prior": evaluate_sketch_prior},
    report=write_report,
    finetune=run_finetune,
    evaluate=run_evaluate,
)
