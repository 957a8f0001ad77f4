"""Table-QA model folders, in the layout every task shares (`tasks.model_folder`): `encoder/`,
`head.safetensors` (the cell and operation heads) and `model.json`, whose labels are the
operations (`operations.OPS`) and whose inputs are the `SerializeConfig` its questions were
serialised with."""

from __future__ import annotations

from pathlib import Path

from fortap.encoding.serialize import SerializeConfig
from fortap.tasks import model_folder
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.operations import OPS

TASK = "table-qa"


def save_qa_model(
    model: TableQAModel, directory: str | Path, inputs: SerializeConfig, dtype=None
) -> None:
    meta = model_folder.FolderMeta(TASK, inputs, {}, tuple(OPS))
    model_folder.save_folder(directory, meta, model.encoder, model.heads, dtype)


def load_qa_model(directory: str | Path) -> tuple[TableQAModel, SerializeConfig]:
    """The model saved by `save_qa_model` (eval mode) and its input settings."""
    meta = model_folder.read_meta(directory, TASK, tuple(OPS))
    model = TableQAModel(model_folder.load_encoder(directory))
    model_folder.load_head(model.heads, directory)
    return model.eval(), meta.inputs
