"""The formula-prediction model: the encoder with a new formula decoder (`FormulaPredictionModel`).

`forward(batch)` returns `(loss, logs)` as objectives do, so `fortap.training.loop.train` trains
it: loss = sketch NLL + `range_weight` * range NLL. `encode` gives what the decoder and beam
search (`fortap.tasks.formula_prediction.decoding`) read of one batch (`Encoded`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from fortap.encoding.example import Batch
from fortap.model.formula_decoder import DecoderConfig, FormulaDecoder
from fortap.objectives.base import hidden_size
from fortap.tasks.formula_prediction.examples import FP_KEY, IGNORE


@dataclass
class Encoded:
    """What the decoder reads of one encoded batch."""

    memory: torch.Tensor  # (B, T, D) token states
    memory_pad: torch.Tensor  # (B, T) True on padding
    formula_state: torch.Tensor  # (B, D) the target cell's [SEP] state
    cell_states: torch.Tensor  # (B, C, D)
    candidates: torch.Tensor  # (B, C) cells a pointer may choose (not padding, not the target)
    offsets: torch.Tensor  # (B, C, 2) each cell's (row, col) minus the target's

    def row(self, b: int, k: int = 1) -> Encoded:
        """Example `b` repeated `k` times."""
        return Encoded(*(x[b : b + 1].expand(k, *x.shape[1:]) for x in self.__dict__.values()))


class FormulaPredictionModel(nn.Module):
    """Encoder + formula decoder; `forward(batch) -> (loss, logs)` for the training loop.

    loss = sketch NLL + `range_weight` * range NLL; `range_weight` is 0 in the sketch-only warm
    phase (the trainer sets it).
    """

    def __init__(self, encoder: nn.Module, decoder_cfg: DecoderConfig | None = None) -> None:
        super().__init__()
        self.encoder = encoder
        self.decoder = FormulaDecoder(hidden_size(encoder), decoder_cfg)
        self.range_weight = 1.0

    def encode(self, batch: Batch, cell: torch.Tensor) -> Encoded:
        """The encoder's view of a batch whose targets are the cells `cell` (B,) (0-based)."""
        out = self.encoder(batch)
        b = torch.arange(len(cell))
        candidates = batch.cell_mask.clone()  # (B, C)
        candidates[b, cell] = False  # a formula never refers to itself
        place = torch.stack(
            [batch.rows.gather(1, batch.sep_index), batch.cols.gather(1, batch.sep_index)], -1
        )  # (B, C, 2)
        return Encoded(
            memory=out.token_states,
            memory_pad=~batch.token_mask,
            formula_state=out.cell_states[b, cell],
            cell_states=out.cell_states,
            candidates=candidates,
            offsets=place - place[b, cell][:, None],
        )

    def forward(self, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        t = batch.targets[FP_KEY]
        enc = self.encode(batch, t["cell"])
        logits, ranges = self.decoder(
            enc.memory, enc.memory_pad, enc.formula_state, enc.cell_states, enc.candidates,
            t["sketch_in"], enc.offsets, t["pointers"],
        )  # (B, S, V), (B, S, C)  # fmt: skip
        sketch_loss = F.cross_entropy(
            logits.flatten(0, 1), t["sketch_out"].flatten(), ignore_index=IGNORE
        )
        has_range = t["pointers"] != IGNORE  # (B, S)
        if bool(has_range.any()):
            range_loss = F.cross_entropy(
                ranges.flatten(0, 1), t["pointers"].flatten(), ignore_index=IGNORE
            )
        else:
            range_loss = ranges.sum() * 0.0
        loss = sketch_loss + self.range_weight * range_loss
        real = t["sketch_out"] != IGNORE
        logs = {
            "loss/sketch": float(sketch_loss.detach()),
            "loss/range": float(range_loss.detach()),
            "loss/formula": float((sketch_loss + range_loss).detach()),  # the dev criterion
            "acc/sketch": _accuracy(logits, t["sketch_out"], real),
            "n/sketch": float(real.sum()),
            "acc/range": _accuracy(ranges, t["pointers"], has_range),
            "n/range": float(has_range.sum()),
        }
        return loss, logs


def _accuracy(scores: torch.Tensor, labels: torch.Tensor, where: torch.Tensor) -> float:
    n = int(where.sum())
    if n == 0:
        return 0.0
    return float((scores.argmax(-1)[where] == labels[where]).sum()) / n
