"""The table-QA task's registry entry (`TASK`)."""

from __future__ import annotations

from fortap.tasks.base import Task
from fortap.tasks.table_qa.baselines import MajorityOp, overlap_rule
from fortap.tasks.table_qa.config import SHORTHANDS, QARunConfig
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.questions import QuestionBuilder
from fortap.tasks.table_qa.run import run_evaluate, run_finetune
from fortap.tasks.table_qa.scoring import score

TASK = Task(
    name="table-qa",
    summary="answer questions over HiTab tables (cells + one operation), beside two baselines",
    config=QARunConfig,
    shorthands=SHORTHANDS,
    examples=QuestionBuilder,
    model=TableQAModel,
    metrics=score,
    baselines={"overlap rule": overlap_rule, "majority op": MajorityOp},
    finetune=run_finetune,
    evaluate=run_evaluate,
)
