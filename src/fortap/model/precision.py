"""When to run the encoder under bf16 autocast on CPU: the one precision policy of training
(`training.loop`, `TrainConfig.bf16`) and of inference (`use_bf16(mode, inference=True)`).

A mode is "on", "off" or "auto"; "auto" decides by the CPU, as below.

The project's rule: bf16 autocast only on CPUs with AMX tiles (oneDNN's bf16 GEMMs there run
3-4x fp32, cpu_stack note §4.2). On the AMD EPYC of this project's CI machine (AVX512-BF16,
no AMX) bf16 autocast ran MiniLM-size training 1.5-1.7x and 1×256 inference 1.6x faster than
fp32 (2026-11-22; the encoder bench, since retired: `docs/journal/bench-retired.md`), so the
rule may be worth widening to AVX512-BF16 once accuracy under bf16 is checked.

Inference is the exception, decided by `bf16_inference_supported`: a forward pass under bf16
on any CPU with native bf16 dot products (AMX or AVX512-BF16) keeps the encoder's states within
the agreement with fp32 measured then (cosine ~0.999) at 1.6x the speed, and inference builds
no gradients, so none of the training traps apply.

On a GPU (`TrainConfig.device` "cuda"), "auto" means bf16 autocast: the CPU traps do not apply
there, and bf16 matrix products are the GPU's native fast path (`autocast_for`).
"""

from __future__ import annotations

import contextlib

import torch
from torch import nn


def bf16_autocast_supported() -> bool:
    """True when this CPU has AMX tiles, where bf16 autocast is worth it."""
    return bool(torch.cpu._is_amx_tile_supported())


def bf16_inference_supported() -> bool:
    """True when this CPU computes bf16 dot products natively (AMX or AVX512-BF16)."""
    return bool(torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())


BF16_MODES = ("auto", "on", "off")


def use_bf16(mode: str, inference: bool = False) -> bool:
    """Whether a run in `mode` ("auto", "on", "off") computes under bf16 autocast: "auto"
    trains in bf16 only with AMX and infers in bf16 wherever bf16 is native (see above)."""
    if mode not in BF16_MODES:
        raise ValueError(f"bf16 mode must be auto, on or off, got {mode!r}")
    if mode != "auto":
        return mode == "on"
    return bf16_inference_supported() if inference else bf16_autocast_supported()


def cpu_autocast(enabled: bool) -> contextlib.AbstractContextManager:
    """bf16 autocast on CPU when `enabled`, a no-op context otherwise."""
    if not enabled:
        return contextlib.nullcontext()
    return torch.autocast("cpu", dtype=torch.bfloat16)


def autocast_for(device: str | torch.device, mode: str) -> contextlib.AbstractContextManager:
    """The training autocast of a run in `mode` on `device`: on CPU as `use_bf16` decides; on
    CUDA bf16 unless `mode` is "off"."""
    kind = torch.device(device).type
    if mode not in BF16_MODES:
        raise ValueError(f"bf16 mode must be auto, on or off, got {mode!r}")
    if kind == "cpu":
        return cpu_autocast(use_bf16(mode))
    if mode == "off":
        return contextlib.nullcontext()
    return torch.autocast(kind, dtype=torch.bfloat16)


def device_of(module: nn.Module) -> torch.device:
    """Where `module`'s parameters live (the CPU for a module without any)."""
    first = next(module.parameters(), None)
    return first.device if first is not None else torch.device("cpu")
