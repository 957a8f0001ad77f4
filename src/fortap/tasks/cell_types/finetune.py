"""Fine-tuning cell types through the shared loop (`finetune_cell_types`).

The task hands `fortap.training.loop.train` the model (`CellTypeModel`, whose `forward(batch)`
returns `(loss, logs)`) and `ShuffledBatches` over the training windows, and gets the bf16
policy, checkpoints every `training.save_every` updates that a stopped run resumes from on the
same trajectory, `metrics.jsonl` and the progress bar. The class weights come from the
training windows' labels, so a resumed run computes the same ones.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import torch
from torch import nn

from fortap.encoding.example import Example
from fortap.tasks.cell_types.config import CellTypesRunConfig
from fortap.tasks.cell_types.examples import TARGET, ct_batch
from fortap.tasks.cell_types.labels import CELL_TYPES, NO_LABEL
from fortap.tasks.cell_types.model import CellTypeModel, class_weights
from fortap.training.loop import TrainResult, train
from fortap.training.shuffled import ShuffledBatches


def label_counts(examples: Sequence[Example]) -> list[int]:
    """Cells of each class over the windows' targets (a repeated header cell once per window)."""
    counts = [0] * len(CELL_TYPES)
    for ex in examples:
        for label in ex.targets[TARGET]["labels"]:
            if label != NO_LABEL:
                counts[label] += 1
    return counts


def finetune_cell_types(
    train_examples: Sequence[Example],
    encoder: nn.Module,
    cfg: CellTypesRunConfig,
    out_dir: str | Path,
    stop_at: int | None = None,
    resume: bool = True,
) -> tuple[CellTypeModel, TrainResult]:
    """Fine-tune `encoder` with a new head on `train_examples` in `out_dir` (resuming from its
    checkpoints); the model is returned in eval mode."""
    if not train_examples:
        raise ValueError("finetune_cell_types: no training windows")
    rng = random.Random(cfg.training.seed)
    torch.manual_seed(rng.randrange(2**31))
    weights = class_weights(label_counts(train_examples), cfg.training.class_power)
    model = CellTypeModel(encoder, weights)
    data = ShuffledBatches(train_examples, ct_batch, cfg.training.batch_size, rng)
    result = train(model, data, cfg.training.loop(), cfg.optim.optimizer(), out_dir,
                   resume=resume, stop_at=stop_at)  # fmt: skip
    return model.eval(), result
