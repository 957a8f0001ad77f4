"""One encoder, several objective heads, one weighted loss (`MultiObjectiveModel`).

`forward(batch)` encodes once, runs each head on the shared `EncoderOutput` and returns the
weighted sum of the objectives' losses with a log entry per objective (`loss/mlm`,
`acc/mlm`, ...). The training loop sees only this module.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch import nn

from fortap.encoding.example import Batch, Example
from fortap.objectives.base import Objective
from fortap.objectives.builder import TargetBuilder


class MultiObjectiveModel(nn.Module):
    """`encoder` plus one head per objective; `weights` scale each objective's loss."""

    def __init__(
        self,
        encoder: nn.Module,
        objectives: Sequence[Objective],
        configs: Mapping[str, Any] | None = None,
        weights: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__()
        configs = dict(configs or {})
        self.encoder = encoder
        self.objectives = list(objectives)
        self.configs = {o.name: configs.get(o.name) or o.config() for o in self.objectives}
        self.weights = {o.name: float((weights or {}).get(o.name, 1.0)) for o in self.objectives}
        self.heads = nn.ModuleDict(
            {o.name: o.head(encoder, self.configs[o.name]) for o in self.objectives}
        )

    def forward(self, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        """(weighted total loss, {"loss/NAME": ..., "acc/NAME": ..., "n/NAME": ...})."""
        output = self.encoder(batch)
        total = None
        logs: dict[str, float] = {}
        for objective in self.objectives:
            name = objective.name
            target = batch.targets[name]
            scores = self.heads[name](output, batch)
            loss = objective.loss(scores, target)
            total = (
                self.weights[name] * loss if total is None else total + self.weights[name] * loss
            )
            logs[f"loss/{name}"] = float(loss.detach())
            with torch.no_grad():
                for key, value in objective.metric(scores, target).items():
                    logs[f"{key}/{name}"] = value
        assert total is not None, "MultiObjectiveModel needs at least one objective"
        logs["loss"] = float(total.detach())
        return total, logs

    def build_targets(
        self,
        example: Example,
        vocab,
        rng: random.Random,
        max_tokens: int,
        negatives: Sequence[str] = (),
    ) -> Example:
        """Apply every objective's target builder, in their fixed order."""
        return self.target_builder(vocab, max_tokens, negatives).example(example, rng)

    def target_builder(
        self, vocab, max_tokens: int, negatives: Sequence[str] = ()
    ) -> TargetBuilder:
        """The objectives' target builders over one run's vocabulary, budget and distractors."""
        return TargetBuilder(self.objectives, self.configs, vocab, max_tokens, negatives)

    def target_collators(self) -> dict[str, Any]:
        return {o.name: o.collate for o in self.objectives}
