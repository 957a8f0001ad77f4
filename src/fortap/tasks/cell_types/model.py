"""`CellTypeModel`: a linear head over the encoder's cell states, trained with class-weighted
cross-entropy.

The head reads each cell's state (`EncoderOutput.cell_states`) beside its extra features
(`examples.EXTRA_NAMES`: indentation, alignment, leading spaces; what the 11-dim format vector
has no room for) and gives one logit per cell type. The loss weighs class c by
(N / (K n_c)) ** `power` from the training cells' counts (`class_weights`): power 1 is
scikit-learn's "balanced", 0 is plain cross-entropy; the default 0.5 is a middle we chose
before any run, not tuned. Logs `loss/cell_types`, `acc/cell_types`, `n/cell_types`.

Letters: B batch, C cells, D hidden, E extra features, K classes.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from fortap.encoding.example import Batch
from fortap.tasks.cell_types.examples import EXTRA_NAMES, TARGET
from fortap.tasks.cell_types.labels import CELL_TYPES, NO_LABEL


def class_weights(counts: Sequence[int], power: float = 0.5) -> list[float]:
    """(N / (K n_c)) ** power per class (a class without cells gets weight 0)."""
    total, k = sum(counts), len(counts)
    return [(total / (k * n)) ** power if n else 0.0 for n in counts]


class CellTypeModel(nn.Module):
    """Encoder + linear head: `forward(batch) -> (loss, logs)`, `logits(batch)` (B, C, K)."""

    def __init__(self, encoder: nn.Module, weights: Sequence[float] | None = None) -> None:
        super().__init__()
        self.encoder = encoder
        hidden = encoder.config.hidden
        self.head = nn.Linear(hidden + len(EXTRA_NAMES), len(CELL_TYPES))
        nn.init.normal_(self.head.weight, std=encoder.config.init_std)
        nn.init.zeros_(self.head.bias)
        weights = weights if weights is not None else [1.0] * len(CELL_TYPES)
        self.register_buffer(
            "weights", torch.tensor(weights, dtype=torch.float32), persistent=False
        )

    def logits(self, batch: Batch) -> torch.Tensor:
        states = self.encoder(batch).cell_states  # (B, C, D)
        extras = batch.inputs[TARGET].to(states.dtype)  # (B, C, E)
        return self.head(torch.cat([states, extras], dim=-1))  # (B, C, K)

    def forward(self, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        logits = self.logits(batch).float()  # (B, C, K)
        gold = batch.targets[TARGET]["labels"]  # (B, C)
        scored = gold != NO_LABEL  # (B, C)
        n = int(scored.sum())
        if not n:  # a batch of unlabelled windows: no gradient, nothing to log but the count
            return logits.sum() * 0.0, {"loss/cell_types": 0.0, "n/cell_types": 0.0}
        loss = F.cross_entropy(logits[scored], gold[scored], weight=self.weights)
        acc = (logits[scored].argmax(-1) == gold[scored]).float().mean()
        logs = {
            "loss/cell_types": float(loss.detach()),
            "acc/cell_types": float(acc),
            "n/cell_types": n,
        }
        return loss, logs
