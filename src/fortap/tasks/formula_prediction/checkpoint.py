"""Formula-prediction model folders, in the layout every task shares (`tasks.model_folder`):
`encoder/`, `head.safetensors` (the formula decoder), and `model.json` with the decoder's
`DecoderConfig` as its head and the `SerializeConfig` its examples were built with as its
inputs (so a caller that builds inputs for it, such as the suggestion engine's model source,
builds the same ones).

The encoders a comparison starts from are `fortap.model.pretrained.baseline_encoder`.
"""

from __future__ import annotations

from pathlib import Path

import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.tasks import model_folder
from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.model import FormulaPredictionModel

TASK = "formula-prediction"


def default_inputs() -> SerializeConfig:
    """The inputs of a run with the default config (128 tokens, the paper setting)."""
    from fortap.tasks.formula_prediction.config import FormulaRunConfig

    return FormulaRunConfig().examples().serialize


def save_formula_model(
    model: FormulaPredictionModel,
    directory: str | Path,
    inputs: SerializeConfig | None = None,
    dtype: torch.dtype | None = None,
) -> None:
    """Write the model into `directory`; `inputs`: how its examples were serialised (the
    default run's when None); `dtype` (`torch.bfloat16` for a released model) narrows the
    float32 weights, which loading widens back."""
    import dataclasses

    meta = model_folder.FolderMeta(TASK, inputs or default_inputs(),
                                   dataclasses.asdict(model.decoder.cfg), ())  # fmt: skip
    model_folder.save_folder(directory, meta, model.encoder, model.decoder, dtype)


def load_inputs(directory: str | Path) -> SerializeConfig:
    """The `SerializeConfig` the model's examples were built with."""
    return model_folder.read_meta(directory, TASK).inputs


def load_formula_model(directory: str | Path) -> FormulaPredictionModel:
    """The model saved by `save_formula_model`, in eval mode."""
    meta = model_folder.read_meta(directory, TASK)
    try:
        cfg = DecoderConfig(**meta.head)
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"bad decoder config in {Path(directory)}: {err}") from None
    model = FormulaPredictionModel(model_folder.load_encoder(directory), cfg)
    model_folder.load_head(model.decoder, directory)
    return model.eval()
