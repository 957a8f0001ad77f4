"""The kept best state (`BestState`): lowest or highest value, first of equals, resumable."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from fortap.errors import CheckpointError
from fortap.training.best import BestState


def offer_all(best: BestState, values: list[float]) -> list[float]:
    """Offer one entry per value, the model's weight set to the step; the kept weight."""
    model = nn.Linear(1, 1, bias=False)
    for step, value in enumerate(values, start=1):
        with torch.no_grad():
            model.weight.fill_(float(step))
        best.offer({"eval/x": value}, model, step)
    best.restore(model)
    return model.weight.flatten().tolist()


def test_min_keeps_the_lowest_and_max_the_highest_first_of_equals(tmp_path):
    values = [0.5, 0.25, 0.75, 0.25, 0.75]
    low = BestState("eval/x", tmp_path)
    assert offer_all(low, values) == [2.0] and low.step == 2
    high = BestState("eval/x", tmp_path, mode="max")
    assert offer_all(high, values) == [3.0] and high.state() == {
        "metric": "eval/x", "mode": "max", "value": 0.75, "step": 3}  # fmt: skip


def test_a_resumed_run_keeps_the_same_metric_and_mode(tmp_path):
    high = BestState("eval/x", tmp_path, mode="max")
    offer_all(high, [0.1, 0.3])
    high.save()
    again = BestState("eval/x", tmp_path, mode="max")
    again.load(high.state())
    assert (again.value, again.step) == (0.3, 2)
    assert offer_all(again, [0.2]) == [2.0]  # 0.2 does not beat the restored 0.3
    with pytest.raises(CheckpointError, match=r"'eval/x' \(max\).*'eval/x' \(min\)"):
        BestState("eval/x", tmp_path).load(high.state())
    with pytest.raises(ValueError, match="mode"):
        BestState("eval/x", tmp_path, mode="up")
