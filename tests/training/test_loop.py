"""Loop pieces: averaged logs, the bf16 switch, config checks."""

from __future__ import annotations

import pytest

from fortap.training.loop import TrainConfig, _means, use_bf16


def test_accuracies_are_weighted_by_their_counts():
    window = {"loss": [1.0, 3.0], "acc/mlm": [1.0, 0.0], "n/mlm": [3.0, 1.0]}
    assert _means(window) == {"loss": 2.0, "acc/mlm": 0.75, "n/mlm": 4.0}


def test_bf16_only_when_asked_or_with_amx():
    assert use_bf16("off") is False
    assert use_bf16("on") is True


@pytest.mark.parametrize(("field", "value"), [("steps", 0), ("grad_accum", 0), ("bf16", "yes")])
def test_config_rejects_nonsense_naming_the_field(field, value):
    with pytest.raises(ValueError, match=f"TrainConfig.{field}"):
        TrainConfig(**{field: value})
