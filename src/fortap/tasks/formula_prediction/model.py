"""The formula-prediction model: the encoder with a new formula decoder (`FormulaPredictionModel`).

`forward(batch)` returns `(loss, logs)` as objectives do, so `fortap.training.loop.train` trains
it: loss = sketch NLL + `range_weight` * range NLL (+ the copy head's NLL in the sheet setting,
`copy_nll`). `encode` gives what the decoder and beam
search (`fortap.tasks.formula_prediction.decoding`) read of one batch (`Encoded`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from fortap.encoding.example import Batch
from fortap.objectives.base import hidden_size
from fortap.tasks.formula_prediction.decoder import DecoderConfig, FormulaDecoder
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
        b = torch.arange(len(cell), device=cell.device)
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

    def copy_scores(self, enc: Encoded, targets: dict[str, torch.Tensor]) -> torch.Tensor:
        """(B, C + 1) copy-head scores of each cell, then "write" (needs the copy head)."""
        assert self.decoder.copy_head is not None
        mask = targets["copy_mask"] & enc.candidates  # (B, C)
        return self.decoder.copy_head(
            enc.formula_state, enc.cell_states, enc.offsets, targets["copy_agree"],
            targets["copy_features"], mask,
        )  # fmt: skip

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
        logs = {}
        if self.decoder.copy_head is not None:
            copy_loss, logs = copy_nll(self.copy_scores(enc, t), t["copy_ok"])
            loss = loss + copy_loss
        logs |= {
            "loss/sketch": float(sketch_loss.detach()),
            "loss/range": float(range_loss.detach()),
            "loss/formula": float((sketch_loss + range_loss).detach()),  # the dev criterion
            "acc/sketch": _accuracy(logits, t["sketch_out"], real),
            "n/sketch": float(real.sum()),
            "acc/range": _accuracy(ranges, t["pointers"], has_range),
            "n/range": float(has_range.sum()),
        }
        return loss, logs


def copy_nll(scores: torch.Tensor, ok: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
    """Copy-head loss: -log of the probability of every right choice together (each copy
    candidate whose copy is the target's formula; "write" when none is), with its logs."""
    right = torch.cat([ok, ~ok.any(-1, keepdim=True)], -1)  # (B, C + 1)
    log_probs = scores.log_softmax(-1)  # (B, C + 1)
    loss = -log_probs.masked_fill(~right, float("-inf")).logsumexp(-1).mean()
    chosen = right.gather(1, scores.argmax(-1, keepdim=True))  # (B, 1)
    return loss, {
        "loss/copy": float(loss.detach()),
        "acc/copy": float(chosen.float().mean()),
        "n/copy": float(len(ok)),
        "share/copyable": float(ok.any(-1).float().mean()),
    }


def _accuracy(scores: torch.Tensor, labels: torch.Tensor, where: torch.Tensor) -> float:
    n = int(where.sum())
    if n == 0:
        return 0.0
    return float((scores.argmax(-1)[where] == labels[where]).sum()) / n
