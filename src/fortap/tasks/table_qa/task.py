"""The table-QA task's registry entry (`TASK`)."""

from __future__ import annotations

from fortap.tasks.base import Task
from fortap.tasks.model_folder import ENCODER_FILES, ENCODER_KIND, FolderKind
from fortap.tasks.table_qa.answerer import TableAnswerer
from fortap.tasks.table_qa.config import SHORTHANDS, QARunConfig
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.run import check_folder, check_sample, run_evaluate, run_finetune

TASK = Task(
    name="table-qa",
    summary="answer questions over HiTab tables (cells + one operation), beside two baselines",
    config=QARunConfig,
    shorthands=SHORTHANDS,
    model=TableQAModel,
    finetune=run_finetune,
    evaluate=run_evaluate,
    check=check_folder,
    check_sample=check_sample,
    folders=(FolderKind(ENCODER_KIND, ENCODER_FILES, TableAnswerer.load),),
)
