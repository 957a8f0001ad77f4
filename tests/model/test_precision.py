"""One bf16 policy for training and inference: "on"/"off" force it, "auto" asks the CPU."""

from __future__ import annotations

import pytest
import torch

from fortap.model.precision import use_bf16


@pytest.mark.parametrize(
    ("amx", "avx512_bf16", "train", "infer"),
    [
        (True, True, True, True),  # AMX: bf16 for both
        (False, True, False, True),  # AVX512-BF16 only: inference in bf16, training in fp32
        (False, False, False, False),  # no native bf16: fp32 for both
    ],
)
def test_auto_decides_by_the_cpu(monkeypatch, amx, avx512_bf16, train, infer):
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx)
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: avx512_bf16)
    assert use_bf16("auto") is train
    assert use_bf16("auto", inference=True) is infer


def test_on_and_off_force_the_choice():
    assert use_bf16("on") is True and use_bf16("on", inference=True) is True
    assert use_bf16("off") is False and use_bf16("off", inference=True) is False


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="bf16 mode must be auto, on or off, got 'fast'"):
        use_bf16("fast")


def test_autocast_for_follows_the_device_and_the_mode():
    import contextlib

    from fortap.model.precision import autocast_for, device_of

    assert isinstance(autocast_for("cpu", "off"), contextlib.nullcontext)
    assert isinstance(autocast_for("cuda", "off"), contextlib.nullcontext)
    assert isinstance(autocast_for("cpu", "on"), torch.autocast)
    with pytest.raises(ValueError, match="bf16 mode"):
        autocast_for("cuda", "fast")
    assert device_of(torch.nn.Linear(2, 2)).type == "cpu"
    assert device_of(torch.nn.ReLU()).type == "cpu"
