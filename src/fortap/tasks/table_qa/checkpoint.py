"""Table-QA model folders, in the layout every task shares (`tasks.model_folder`): `encoder/`,
`head.safetensors` (the cell and operation heads) and `model.json`, whose labels are the
operations (`operations.OPS`), whose inputs are the `SerializeConfig` its questions were
serialised with, and whose head record holds its decoding settings (`{"decoding": {...}}`,
`decoding.DecodeConfig`; an empty record: the defaults), which every caller of `predict` then
decodes with."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from fortap.encoding.serialize import SerializeConfig
from fortap.tasks import model_folder
from fortap.tasks.table_qa.decoding import DecodeConfig
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.operations import OPS

TASK = "table-qa"


def save_qa_model(
    model: TableQAModel, directory: str | Path, inputs: SerializeConfig, dtype=None
) -> None:
    head = {"decoding": asdict(model.decoding)} if model.decoding != DecodeConfig() else {}
    meta = model_folder.FolderMeta(TASK, inputs, head, tuple(OPS))
    model_folder.save_folder(directory, meta, model.encoder, model.heads, dtype)


def load_qa_model(directory: str | Path) -> tuple[TableQAModel, SerializeConfig]:
    """The model saved by `save_qa_model` (eval mode) and its input settings."""
    meta = model_folder.read_meta(directory, TASK, tuple(OPS))
    decoding = DecodeConfig.of(meta.head.get("decoding", {}))
    model = TableQAModel(model_folder.load_encoder(directory), decoding)
    model_folder.load_head(model.heads, directory)
    return model.eval(), meta.inputs
