"""Cell-type model folders: `encoder/` (`FortapEncoder.save_pretrained`), `head.safetensors`
(through `fortap.model.state_file`; nothing is unpickled) and `head.json`, which names the
classes and extra features the head was trained on and the `SerializeConfig` of its windows.
Loading refuses a folder whose classes or extra features differ from this version's, by name.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.model.encoder import FortapEncoder
from fortap.model.state_file import load_state, save_state
from fortap.tasks.cell_types.examples import EXTRA_NAMES
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.model import CellTypeModel

HEAD_CONFIG, HEAD_WEIGHTS = "head.json", "head.safetensors"


def save_cell_type_model(
    model: CellTypeModel, directory: str | Path, inputs: SerializeConfig
) -> None:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.encoder.save_pretrained(directory / "encoder")
    save_state(model.head, directory / HEAD_WEIGHTS)
    meta = {"classes": list(CELL_TYPES), "extras": list(EXTRA_NAMES),
            "inputs": dataclasses.asdict(inputs)}  # fmt: skip
    (directory / HEAD_CONFIG).write_text(json.dumps(meta, indent=1) + "\n")


def load_cell_type_model(directory: str | Path) -> tuple[CellTypeModel, SerializeConfig]:
    """The model saved by `save_cell_type_model` (eval mode) and its windows' settings."""
    directory = Path(directory)
    path = directory / HEAD_CONFIG
    if not path.is_file():
        raise CheckpointError(
            f"{directory} is not a cell-type model folder (no {HEAD_CONFIG}); give the model/ "
            "folder that `fortap finetune cell-types` wrote"
        )
    try:
        meta = json.loads(path.read_text())
        inputs = SerializeConfig(**meta["inputs"])
    except (OSError, TypeError, ValueError, KeyError) as err:
        raise CheckpointError(f"cannot read {path}: {err}") from None
    for key, names in (("classes", CELL_TYPES), ("extras", EXTRA_NAMES)):
        if tuple(meta.get(key, ())) != names:
            raise CheckpointError(
                f"{path}: trained on {key} {meta.get(key)}, this fortap has {list(names)}"
            )
    model = CellTypeModel(FortapEncoder.from_pretrained(directory / "encoder"))
    load_state(model.head, directory / HEAD_WEIGHTS)
    return model.eval(), inputs
