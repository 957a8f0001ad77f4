"""A fine-tuned table-QA model on disk: `encoder/` (`FortapEncoder.save_pretrained`),
`heads.safetensors` (the two heads, through `model.state_file`; nothing is unpickled) and
`inputs.json` (the `SerializeConfig` its questions were serialised with)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.model.encoder import FortapEncoder
from fortap.model.state_file import load_state, save_state
from fortap.tasks.table_qa.model import TableQAModel

HEADS, INPUTS = "heads.safetensors", "inputs.json"


def save_qa_model(model: TableQAModel, directory: str | Path, inputs: SerializeConfig) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.encoder.save_pretrained(directory / "encoder")
    save_state(model.heads, directory / HEADS)
    (directory / INPUTS).write_text(json.dumps(dataclasses.asdict(inputs), indent=2) + "\n")


def load_qa_model(directory: str | Path) -> tuple[TableQAModel, SerializeConfig]:
    """The model saved by `save_qa_model` (eval mode) and its input settings."""
    directory = Path(directory)
    if not (directory / HEADS).is_file():
        raise CheckpointError(f"no table-QA model in {directory} (no {HEADS})")
    model = TableQAModel(FortapEncoder.from_pretrained(directory / "encoder"))
    load_state(model.heads, directory / HEADS)
    try:
        inputs = SerializeConfig(**json.loads((directory / INPUTS).read_text()))
    except (OSError, TypeError, ValueError) as err:
        raise CheckpointError(
            f"cannot read the input settings {directory / INPUTS}: {err}"
        ) from None
    return model.eval(), inputs
