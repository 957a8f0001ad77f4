"""Loop pieces: averaged logs, the bf16 switch, config checks."""

from __future__ import annotations

import pytest

from fortap.training.loop import TrainConfig, _means, use_bf16


def test_accuracies_are_weighted_by_their_counts():
    window = {"loss": [1.0, 3.0], "acc/mlm": [1.0, 0.0], "n/mlm": [3.0, 1.0]}
    assert _means(window) == {"loss": 2.0, "acc/mlm": 0.75, "n/mlm": 4.0}


def test_f1_is_recomputed_from_summed_counts_and_rates_use_their_own_counts():
    window = {"f1/nrp": [1.0, 0.0], "tp/nrp": [1.0, 0.0], "fp/nrp": [0.0, 2.0],
              "fn/nrp": [0.0, 1.0], "tag_acc/nrp": [1.0, 0.5], "n_tags/nrp": [1.0, 3.0]}  # fmt: skip
    means = _means(window)
    assert means["f1/nrp"] == 2 * 1 / (2 * 1 + 2 + 1)  # not the mean of per-batch F1s
    assert means["tp/nrp"] == 1.0 and means["fp/nrp"] == 2.0 and means["n_tags/nrp"] == 4.0
    assert means["tag_acc/nrp"] == (1.0 + 1.5) / 4


def test_bf16_only_when_asked_or_with_amx():
    assert use_bf16("off") is False
    assert use_bf16("on") is True


@pytest.mark.parametrize(("field", "value"), [("steps", 0), ("grad_accum", 0), ("bf16", "yes")])
def test_config_rejects_nonsense_naming_the_field(field, value):
    with pytest.raises(ValueError, match=f"TrainConfig.{field}"):
        TrainConfig(**{field: value})
