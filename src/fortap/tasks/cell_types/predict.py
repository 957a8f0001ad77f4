"""A fine-tuned model over windows: the class of every cell, each cell from its owner window,
with the model's probability of it (the softmax of the owner window's logits)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from fortap.encoding.example import Example
from fortap.encoding.piece import RC
from fortap.encoding.serialize import SerializeConfig
from fortap.model.precision import device_of
from fortap.table.model import Table
from fortap.tasks.cell_types.examples import ct_batch, owners, table_windows
from fortap.tasks.cell_types.labels import Typed
from fortap.tasks.cell_types.model import CellTypeModel
from fortap.text.tokenizer import Tokenizer


@torch.no_grad()
def window_probabilities(
    model: CellTypeModel, windows: Sequence[Example], batch_size: int = 16
) -> list[torch.Tensor]:
    """(C, K) probability of each class for each cell of each window (window order)."""
    was_training = model.training
    model.eval()
    device = device_of(model)
    out: list[torch.Tensor] = []
    for i in range(0, len(windows), batch_size):
        part = list(windows[i : i + batch_size])
        probs = model.logits(ct_batch(part).to(device)).float().softmax(-1).cpu()  # (B, C, K)
        out += [probs[b, : len(ex.cell_coords)] for b, ex in enumerate(part)]
    model.train(was_training)
    return out


def predict_windows(
    model: CellTypeModel, windows: Sequence[Example], batch_size: int = 16
) -> list[list[int]]:
    """The predicted class of each cell of each window (window order, cell order)."""
    return [p.argmax(-1).tolist() for p in window_probabilities(model, windows, batch_size)]


def type_table(
    model: CellTypeModel, table: Table, tokenizer: Tokenizer, cfg: SerializeConfig,
    batch_size: int = 16,
) -> dict[RC, Typed]:  # fmt: skip
    """The class and its probability of every non-empty cell of `table` that a window shows,
    from its owner."""
    windows = table_windows(table, tokenizer, cfg)
    probs = window_probabilities(model, windows, batch_size)
    out = {}
    for rc, (w, k) in owners(windows).items():
        best = int(probs[w][k].argmax())
        out[rc] = (best, float(probs[w][k][best]))
    return out


def predict_table(
    model: CellTypeModel, table: Table, tokenizer: Tokenizer, cfg: SerializeConfig,
    batch_size: int = 16,
) -> dict[RC, int]:  # fmt: skip
    """The class of every non-empty cell of `table` that a window shows, from its owner."""
    return {rc: k for rc, (k, _) in type_table(model, table, tokenizer, cfg, batch_size).items()}
