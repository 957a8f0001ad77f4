"""A fine-tuned model over windows: the class of every cell, each cell from its owner window."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from fortap.encoding.example import Example
from fortap.encoding.piece import RC
from fortap.encoding.serialize import SerializeConfig
from fortap.model.precision import device_of
from fortap.table.model import Table
from fortap.tasks.cell_types.examples import ct_batch, owners, table_windows
from fortap.tasks.cell_types.model import CellTypeModel
from fortap.text.tokenizer import Tokenizer


@torch.no_grad()
def predict_windows(
    model: CellTypeModel, windows: Sequence[Example], batch_size: int = 16
) -> list[list[int]]:
    """The predicted class of each cell of each window (window order, cell order)."""
    was_training = model.training
    model.eval()
    device = device_of(model)
    out: list[list[int]] = []
    for i in range(0, len(windows), batch_size):
        part = list(windows[i : i + batch_size])
        best = model.logits(ct_batch(part).to(device)).argmax(-1)  # (B, C)
        out += [best[b, : len(ex.cell_coords)].tolist() for b, ex in enumerate(part)]
    model.train(was_training)
    return out


def predict_table(
    model: CellTypeModel, table: Table, tokenizer: Tokenizer, cfg: SerializeConfig,
    batch_size: int = 16,
) -> dict[RC, int]:  # fmt: skip
    """The class of every non-empty cell of `table` that a window shows, from its owner."""
    windows = table_windows(table, tokenizer, cfg)
    predicted = predict_windows(model, windows, batch_size)
    return {rc: predicted[w][k] for rc, (w, k) in owners(windows).items()}
