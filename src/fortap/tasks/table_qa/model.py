"""`TableQAModel`: two thin heads over the encoder's cell states.

- cell selection: one logit per serialised cell, `heads["cells"]` over its state and its match
  features with the question (`match.FEATURES`): does the cell hold
  the answer or one of its operands (data and header cells alike); trained on questions with a
  verified target (`cell_losses`: listwise softmax over the cells plus per-cell cross-entropy);
- operation: `heads["op"]` over the `[CLS]` state (the question read against the table): which of
  `operations.OPS` combines the chosen cells; cross-entropy over questions whose labels map.

Letters: B batch, T tokens, C cells, D hidden, F match features, K operations.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from fortap.encoding.example import Batch
from fortap.tasks.table_qa.decoding import DecodeConfig
from fortap.tasks.table_qa.inputs import QA_KEY
from fortap.tasks.table_qa.match import FEATURES
from fortap.tasks.table_qa.operations import OPS


class TableQAModel(nn.Module):
    def __init__(self, encoder: nn.Module, decoding: DecodeConfig | None = None) -> None:
        super().__init__()
        self.encoder = encoder
        self.decoding = decoding or DecodeConfig()  # how `predict` turns scores into answers
        hidden = encoder.config.hidden
        self.heads = nn.ModuleDict({
            "cells": nn.Sequential(
                nn.Linear(hidden + len(FEATURES), hidden), nn.GELU(), nn.Linear(hidden, 1)
            ),
            "op": nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, len(OPS))),
        })  # fmt: skip
        for module in self.heads.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)

    def scores(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """Cell logits (B, C), -inf on padded cells, and operation logits (B, K)."""
        out = self.encoder(batch)
        features = batch.inputs[QA_KEY].to(out.cell_states.dtype)  # (B, C, F)
        both = torch.cat([out.cell_states, features], dim=-1)  # (B, C, D + F)
        cells = self.heads["cells"](both).squeeze(-1).float()  # (B, C)
        cells = cells.masked_fill(~batch.cell_mask, float("-inf"))  # (B, C)
        ops = self.heads["op"](out.token_states[:, 0]).float()  # (B, K)
        return cells, ops

    def forward(self, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        target = batch.targets[QA_KEY]
        cells, ops = self.scores(batch)
        loss = ops.new_zeros(())
        logs: dict[str, float] = {}
        known = target["op"] >= 0  # (B,)
        if known.any():
            op_loss = F.cross_entropy(ops[known], target["op"][known])
            loss = loss + op_loss
            logs["loss/op"] = float(op_loss.detach())
            logs["acc/op"] = float((ops[known].argmax(-1) == target["op"][known]).float().mean())
        has = target["has_cells"]  # (B,)
        if has.any():
            cell_loss = cell_losses(cells[has], target["cells"][has], batch.cell_mask[has])
            loss = loss + cell_loss
            logs["loss/cells"] = float(cell_loss.detach())
            top = cells[has].argmax(-1)  # (b,)
            logs["acc/cell_top1"] = float(target["cells"][has].gather(1, top[:, None]).mean())
        logs["loss"] = float(loss.detach())
        return loss, logs


def cell_losses(logits: torch.Tensor, gold: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Cell selection loss: a listwise term, -log of the softmax mass on the gold cells (it
    ranks them first among ~100 cells, which per-cell terms dominated by the many negatives
    learn slowly), plus per-cell binary cross-entropy (it calibrates the probabilities the
    prediction thresholds). logits, gold, mask: (b, C); logits -inf on padded cells."""
    log_p = torch.log_softmax(logits, dim=-1)  # (b, C)
    listwise = -torch.logsumexp(log_p.masked_fill(gold == 0, float("-inf")), dim=-1).mean()
    flat = logits.masked_fill(~mask, 0.0)  # (b, C)
    bce = F.binary_cross_entropy_with_logits(flat, gold, reduction="none")  # (b, C)
    return listwise + (bce * mask).sum() / mask.sum()
