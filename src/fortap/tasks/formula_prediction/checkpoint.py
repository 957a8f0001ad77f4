"""Formula-prediction checkpoints.

A fine-tuned model is a folder: `encoder/` (`FortapEncoder.save_pretrained`), `decoder.json`
(the `DecoderConfig`), `decoder.safetensors` (through `fortap.model.state_file`; nothing is
unpickled) and `inputs.json`, the `SerializeConfig` its examples were built with (so a caller
that builds inputs for it, such as the suggestion engine's model source, builds the same ones;
folders saved before it was written have none, and `load_inputs` gives None).

The encoders a comparison starts from are `fortap.model.pretrained.baseline_encoder`.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.model.encoder import FortapEncoder
from fortap.model.formula_decoder import DecoderConfig
from fortap.model.state_file import load_state, save_state
from fortap.tasks.formula_prediction.model import FormulaPredictionModel

DECODER_CONFIG, DECODER_WEIGHTS, INPUTS = "decoder.json", "decoder.safetensors", "inputs.json"


def save_formula_model(
    model: FormulaPredictionModel,
    directory: str | Path,
    inputs: SerializeConfig | None = None,
    dtype: torch.dtype | None = None,
) -> None:
    """Write the model into `directory`; `inputs`: how its examples were serialised; `dtype`
    (`torch.bfloat16` for a released checkpoint) narrows the float32 weights, which loading
    widens back."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.encoder.save_pretrained(directory / "encoder", dtype)
    cfg = dataclasses.asdict(model.decoder.cfg)
    (directory / DECODER_CONFIG).write_text(json.dumps(cfg, indent=2) + "\n")
    save_state(model.decoder, directory / DECODER_WEIGHTS, dtype)
    if inputs is not None:
        (directory / INPUTS).write_text(json.dumps(dataclasses.asdict(inputs), indent=2) + "\n")


def load_inputs(directory: str | Path) -> SerializeConfig | None:
    """The `SerializeConfig` saved beside the model (None when the folder has no inputs.json)."""
    path = Path(directory) / INPUTS
    if not path.is_file():
        return None
    try:
        return SerializeConfig(**json.loads(path.read_text()))
    except (OSError, TypeError, ValueError) as err:
        raise CheckpointError(f"cannot read the input settings {path}: {err}") from None


def load_formula_model(directory: str | Path) -> FormulaPredictionModel:
    """The model saved by `save_formula_model`, in eval mode."""
    directory = Path(directory)
    path = directory / DECODER_CONFIG
    try:
        cfg = DecoderConfig(**json.loads(path.read_text()))
    except (OSError, TypeError, ValueError) as err:
        raise CheckpointError(f"cannot read decoder config {path}: {err}") from None
    model = FormulaPredictionModel(FortapEncoder.from_pretrained(directory / "encoder"), cfg)
    load_state(model.decoder, directory / DECODER_WEIGHTS)
    return model.eval()
