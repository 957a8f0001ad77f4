"""The model's answers to many questions (`predict`): the heads' scores in batches
(`head_scores`), each decoded to an operation, cells and their execution by the model's own
decoding settings (`decoding.decode`, `TableQAModel.decoding`)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from fortap.encoding.example import Example
from fortap.model.precision import device_of
from fortap.tasks.table_qa.decoding import DecodeConfig, Prediction, QAScores, decode
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.inputs import qa_batch


@torch.no_grad()
def head_scores(model, examples: Sequence[Example], batch_size: int = 16) -> list[QAScores]:
    """Each example's operation logits (K,) and shown-cell logits (C,), on the CPU."""
    model.eval()
    device = device_of(model)
    found: list[QAScores] = []
    for start in range(0, len(examples), batch_size):
        part = list(examples[start : start + batch_size])
        cells, ops = model.scores(qa_batch(part).to(device))  # (B, C), (B, K)
        for b, ex in enumerate(part):
            found.append(QAScores(ops[b].cpu(), cells[b, : len(ex.cell_coords)].cpu()))
    return found


def predict(
    model, examples: Sequence[Example], paths: Sequence[HeaderPaths], batch_size: int = 16,
    cfg: DecodeConfig | None = None,
) -> list[Prediction]:  # fmt: skip
    """Each example's operation, cells and execution (`paths`: each example's table), decoded
    by `cfg`, else by the model's own settings."""
    cfg = cfg or model.decoding
    scores = head_scores(model, examples, batch_size)
    return [decode(s, ex, p, cfg) for s, ex, p in zip(scores, examples, paths, strict=True)]
