"""`FortapEncoder`: the TUTA/ForTaP tree transformer over a `Batch`.

embeddings (`TableEmbeddings`) → tree-distance mask (`tree_attention`) → `config.layers`
post-LN BERT layers → token states, and one state per cell (`cell_states`): by default the
mean over the cell's positions ([SEP] and its tokens), or with
`cell_pooling="sep"` the [SEP] state alone. The mean is the default because a MiniLM start
gives nearly the same [SEP] state to every cell (mean pairwise cosine 0.96-0.98 over a corpus
batch, against 0.77-0.85 for the mean), so heads reading [SEP] alone saw almost no difference
between cells; the reference's heads also pool a cell's token states (reference note §2).
Parameter names follow the MiniLM/BERT safetensors (`embeddings.word_embeddings.weight`,
`encoder.layer.{i}.attention.self.query.weight`, …), so `pretrained.load_minilm` maps by name.

Determinism: parameters are drawn from torch's global generator in a fixed order, so
`torch.manual_seed(s)` before construction gives the same weights; forward is deterministic on
CPU (dropout aside, which also follows the global seed).
Letters: B batch, T tokens, C cells, D hidden.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import torch
from torch import nn

from fortap.encoding.example import Batch
from fortap.errors import CheckpointError
from fortap.model.config import ModelConfig
from fortap.model.embeddings import TableEmbeddings
from fortap.model.layers import EncoderLayer
from fortap.model.minilm_words import WORD_EMBEDDINGS, minilm_words
from fortap.model.output import EncoderOutput
from fortap.model.state_file import load_state, save_state
from fortap.model.tree_attention import attention_mask

CONFIG_FILE = "config.json"  # a checkpoint folder's model config
WEIGHTS_FILE = "model.safetensors"  # and its tensors


class LayerStack(nn.Module):
    """The transformer layers, kept under `encoder.layer.{i}` as in BERT checkpoints."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.layer = nn.ModuleList(EncoderLayer(config) for _ in range(config.layers))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        for layer in self.layer:
            x = layer(x, mask)  # (B, T, D)
        return x


class FortapEncoder(nn.Module):
    """Tree-aware table encoder: `forward(batch) -> EncoderOutput`."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embeddings = TableEmbeddings(config)
        self.encoder = LayerStack(config)
        self.apply(self._init_weights)
        self.embeddings.init_row_col()
        # names of the parameters an initialisation left new (`load_minilm`), which
        # `training.optim.param_groups` trains at the heads' rate (`OptimConfig.lr`); empty = all
        # are new or all loaded
        self.new_parameters: frozenset[str] = frozenset()

    def _init_weights(self, module: nn.Module) -> None:
        """N(0, init_std) for embeddings and linear weights, zero biases, LayerNorm = identity."""
        std = self.config.init_std
        if isinstance(module, nn.Linear | nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=std)
            if getattr(module, "bias", None) is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    def forward(self, batch: Batch) -> EncoderOutput:
        x = self.embeddings(batch)  # (B, T, D)
        mask = attention_mask(batch, self.config)  # (B, 1, T, T) bool or None
        tokens = self.encoder(x, mask)  # (B, T, D)
        pool = mean_cell_states if self.config.cell_pooling == "mean" else cell_states
        return EncoderOutput(token_states=tokens, cell_states=pool(tokens, batch))

    @classmethod
    def from_pretrained(cls, directory: str | Path) -> FortapEncoder:
        """Load config.json + model.safetensors written by `save_pretrained` (no pickle); the
        encoder comes back in eval mode."""
        directory = Path(directory)
        if not (directory / CONFIG_FILE).is_file():
            raise CheckpointError(f"no {CONFIG_FILE} in checkpoint folder {directory}")
        config = ModelConfig.load(directory / CONFIG_FILE)
        model = cls(config)
        if not config.words_from:
            load_state(model, directory / WEIGHTS_FILE)
            return model.eval()
        load_state(model, directory / WEIGHTS_FILE, absent=frozenset({WORD_EMBEDDINGS}))
        with torch.no_grad():
            model.embeddings.word_embeddings.weight.copy_(minilm_words(config))  # (V, D)
        return model.eval()

    def save_pretrained(
        self, directory: str | Path, dtype: torch.dtype | None = None, words_from: str = ""
    ) -> None:
        """Write config.json and model.safetensors into `directory` (created if missing);
        `dtype` narrows the float32 weights (`save_state`). With `words_from` ("minilm" or
        "minilm-bf16") the word table is left out and rebuilt on loading (`minilm_words`); it
        must then equal that table exactly."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        config, state = self.config, self.state_dict()
        if words_from:
            table = state.pop(WORD_EMBEDDINGS).detach().float().cpu()  # (V, D)
            if not torch.equal(table, minilm_words(config, words_from)):
                raise CheckpointError(
                    f"{directory}: the word table differs from MiniLM's ({words_from}); "
                    "store it (words_from='') or train with the word table frozen"
                )
        config = dataclasses.replace(config, words_from=words_from)  # "" = the table is stored
        config.save(directory / CONFIG_FILE)
        save_state(state, directory / WEIGHTS_FILE, dtype)


def cell_states(tokens: torch.Tensor, batch: Batch) -> torch.Tensor:
    """(B, C, D) states at each cell's [SEP] token; zeros on padded cells."""
    index = batch.sep_index[..., None].expand(-1, -1, tokens.shape[-1])  # (B, C, D)
    states = tokens.gather(1, index)  # (B, C, D)
    return states * batch.cell_mask[..., None].to(states.dtype)  # (B, C, D)


def mean_cell_states(tokens: torch.Tensor, batch: Batch) -> torch.Tensor:
    """(B, C, D) mean of the token states of each table cell (column k = tokens with
    `cell_ids` k + 1, as `sep_index`); zeros on padded cells."""
    B, C = batch.sep_index.shape
    real = (batch.cell_ids >= 1) & batch.token_mask.bool()  # (B, T) table-cell tokens
    ids = (batch.cell_ids - 1).clamp(min=0)  # (B, T) column of each token's cell
    weight = real.to(tokens.dtype)  # (B, T)
    sums = tokens.new_zeros(B, C, tokens.shape[-1])  # (B, C, D)
    sums.scatter_add_(1, ids[..., None].expand_as(tokens), tokens * weight[..., None])
    counts = tokens.new_zeros(B, C).scatter_add_(1, ids, weight)  # (B, C)
    states = sums / counts.clamp(min=1)[..., None]  # (B, C, D)
    return states * batch.cell_mask[..., None].to(states.dtype)  # (B, C, D)
