"""Formula prediction decodes on the model's device: its batches are built on the CPU, and the
dev checks (`dev_checks.dev_decoding`), `evaluate.predict` and `decoding.decode_at` move them to
where the model's parameters are before encoding. A fake model on torch's `meta` device (no
GPU needed) records where the batch and the target cells are when it is asked to encode."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.decoding import decode_at
from fortap.tasks.formula_prediction.dev_checks import dev_decoding
from fortap.tasks.formula_prediction.examples import FP_KEY, formula_examples, fp_batch

from .expense_table import expense_table


class Encoded(Exception):
    """Raised by the fake model once it has seen what it was asked to encode."""


class OnDevice(nn.Module):
    """A model whose parameters live on `device`; `encode` records its inputs' devices."""

    def __init__(self, device: str) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(2, device=device))
        self.seen: list[set[str]] = []

    def encode(self, batch, cell: torch.Tensor):
        tensors = (batch.token_ids, batch.cell_mask, batch.rows, batch.sep_index, cell)
        self.seen.append({str(t.device) for t in tensors})
        raise Encoded


def test_dev_decoding_puts_its_batches_on_the_models_device(tokenizer):
    dev = formula_examples(expense_table(), tokenizer)[:3]
    assert str(fp_batch(dev).token_ids.device) == "cpu"  # built on the CPU
    check = dev_decoding(dev, FormulaRunConfig())
    model = OnDevice("meta")
    with pytest.raises(Encoded):
        check(model, 0)
    assert model.seen == [{"meta"}]


def test_decode_at_moves_the_batch_and_the_cells_too(tokenizer):
    batch = fp_batch(formula_examples(expense_table(), tokenizer)[:2])
    model = OnDevice("meta")
    with pytest.raises(Encoded):
        decode_at(model, batch, batch.targets[FP_KEY]["cell"])
    assert model.seen == [{"meta"}]
