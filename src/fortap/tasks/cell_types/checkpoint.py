"""Cell-type model folders, in the layout every task shares (`tasks.model_folder`): `encoder/`,
`head.safetensors` (the linear head) and `model.json`, whose labels are the classes and whose
head names the extra features the head was trained on. Loading refuses a folder whose classes
or extra features differ from this version's, by name."""

from __future__ import annotations

from pathlib import Path

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.tasks import model_folder
from fortap.tasks.cell_types.examples import EXTRA_NAMES
from fortap.tasks.cell_types.labels import CELL_TYPES, TASK
from fortap.tasks.cell_types.model import CellTypeModel


def save_cell_type_model(
    model: CellTypeModel, directory: str | Path, inputs: SerializeConfig, dtype=None
) -> None:
    meta = model_folder.FolderMeta(TASK, inputs, {"extras": list(EXTRA_NAMES)}, CELL_TYPES)
    model_folder.save_folder(directory, meta, model.encoder, model.head, dtype)


def load_cell_type_model(directory: str | Path) -> tuple[CellTypeModel, SerializeConfig]:
    """The model saved by `save_cell_type_model` (eval mode) and its windows' settings."""
    meta = model_folder.read_meta(directory, TASK, CELL_TYPES)
    if tuple(meta.head.get("extras", ())) != EXTRA_NAMES:
        raise CheckpointError(f"{directory}: trained on extras {meta.head.get('extras')}, "
                              f"this fortap has {list(EXTRA_NAMES)}")  # fmt: skip
    model = CellTypeModel(model_folder.load_encoder(directory))
    model_folder.load_head(model.head, directory)
    return model.eval(), meta.inputs
