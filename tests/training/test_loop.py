"""Loop pieces: averaged logs, the bf16 switch, the clock-paced schedule, config checks."""

from __future__ import annotations

import pytest

from fortap.model.precision import use_bf16
from fortap.training.logs import mean_logs
from fortap.training.loop import TrainConfig, schedule_step


def test_accuracies_are_weighted_by_their_counts():
    window = {"loss": [1.0, 3.0], "acc/mlm": [1.0, 0.0], "n/mlm": [3.0, 1.0]}
    assert mean_logs(window) == {"loss": 2.0, "acc/mlm": 0.75, "n/mlm": 4.0}


def test_f1_is_recomputed_from_summed_counts_and_rates_use_their_own_counts():
    window = {"f1/nrp": [1.0, 0.0], "tp/nrp": [1.0, 0.0], "fp/nrp": [0.0, 2.0],
              "fn/nrp": [0.0, 1.0], "tag_acc/nrp": [1.0, 0.5], "n_tags/nrp": [1.0, 3.0]}  # fmt: skip
    means = mean_logs(window)
    assert means["f1/nrp"] == 2 * 1 / (2 * 1 + 2 + 1)  # not the mean of per-batch F1s
    assert means["tp/nrp"] == 1.0 and means["fp/nrp"] == 2.0 and means["n_tags/nrp"] == 4.0
    assert means["tag_acc/nrp"] == (1.0 + 1.5) / 4


def test_bf16_only_when_asked_or_with_amx():
    assert use_bf16("off") is False
    assert use_bf16("on") is True


def test_the_schedule_follows_steps_unless_paced_by_the_clock():
    steps = TrainConfig(steps=100, max_minutes=10)
    assert schedule_step(30, elapsed=540.0, cfg=steps) == 30  # the clock is ignored
    paced = TrainConfig(steps=100, max_minutes=10, pace_by_clock=True)
    assert schedule_step(30, elapsed=300.0, cfg=paced) == 50  # half the time: half the schedule
    assert schedule_step(70, elapsed=300.0, cfg=paced) == 70  # ahead of the clock: own step
    assert schedule_step(80, elapsed=900.0, cfg=paced) == 99  # past the limit: the last step
    unlimited = TrainConfig(steps=100, pace_by_clock=True)  # no time limit, nothing to pace by
    assert schedule_step(30, elapsed=1e6, cfg=unlimited) == 30


@pytest.mark.parametrize(
    ("field", "value"), [("steps", 0), ("grad_accum", 0), ("bf16", "yes"), ("device", "tpu")]
)
def test_config_rejects_nonsense_naming_the_field(field, value):
    with pytest.raises(ValueError, match=f"TrainConfig.{field}"):
        TrainConfig(**{field: value})
