"""Formula-prediction checkpoints, and the encoders the comparison starts from.

A fine-tuned model is a folder: `encoder/` (`FortapEncoder.save_pretrained`), `decoder.json`
(the `DecoderConfig`), `decoder.safetensors` (through `fortap.model.state_file`; nothing is
unpickled) and `inputs.json`, the `SerializeConfig` its examples were built with (so a caller
that builds inputs for it, such as the suggestion engine's model source, builds the same ones;
folders saved before it was written have none, and `load_inputs` gives None).

`baseline_encoder(name, ...)` gives the encoder of each row of the comparison: `random` (no
pretraining at all, for unit tests and sanity), `minilm` (MiniLM weights only, no table
pretraining), `tuta` and `fortap` (a pretraining run's saved encoder folder).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.model.formula_decoder import DecoderConfig
from fortap.model.pretrained import load_minilm
from fortap.model.state_file import load_state, save_state
from fortap.tasks.formula_prediction.model import FormulaPredictionModel

ENCODERS = ("random", "minilm", "tuta", "fortap")
DECODER_CONFIG, DECODER_WEIGHTS, INPUTS = "decoder.json", "decoder.safetensors", "inputs.json"


def baseline_encoder(
    name: str, checkpoint: str | Path | None = None, config: ModelConfig | None = None
) -> FortapEncoder:
    """The starting encoder of comparison row `name` (one of `ENCODERS`)."""
    if name not in ENCODERS:
        raise ValueError(f"baseline_encoder: name must be one of {ENCODERS}, got {name!r}")
    if name == "random":
        return FortapEncoder(config or ModelConfig.minilm())
    if name == "minilm":
        return load_minilm(config)[0]
    if checkpoint is None:
        raise ValueError(f"baseline_encoder: the {name!r} encoder needs a checkpoint folder")
    return FortapEncoder.from_pretrained(checkpoint)


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
