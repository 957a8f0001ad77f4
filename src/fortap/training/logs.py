"""Logged values of training and evaluation, and their means over a window.

Objectives log a flat dict of floats per batch (`loss/mlm`, `acc/mlm`, `n/mlm`, `tp/nrp`, ...).
`mean_logs` averages a window of them: accuracies weighted by their counts, counts summed, F1
recomputed from the summed true/false positives. `Meter` keeps the training window and its
throughput; `evaluate` runs a model over fixed batches and returns `eval/`-prefixed means.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from contextlib import nullcontext

import torch
from torch import nn

from fortap.encoding.example import Batch
from fortap.metrics.f1 import f1
from fortap.model.precision import device_of


class Meter:
    """Train logs of the updates since the last flush, with throughput over all ranks."""

    def __init__(self, world: int) -> None:
        self.world, self.lr = world, 0.0
        self.window: dict[str, list[float]] = defaultdict(list)
        self.tokens, self.samples, self.clock = 0, 0, time.perf_counter()

    def add(self, logs: dict[str, float], batch: Batch) -> None:
        for key, value in logs.items():
            self.window[key].append(value)
        self.tokens += int(batch.token_mask.sum())
        self.samples += int(batch.token_mask.shape[0])

    def flush(self) -> dict[str, float]:
        elapsed = max(time.perf_counter() - self.clock, 1e-9)
        entry = {"lr": self.lr, **mean_logs(self.window)}
        entry["tokens_per_s"] = self.world * self.tokens / elapsed
        entry["samples_per_s"] = self.world * self.samples / elapsed
        self.window.clear()
        self.tokens, self.samples, self.clock = 0, 0, time.perf_counter()
        return entry


@torch.no_grad()
def evaluate(model: nn.Module, batches: Sequence[Batch], autocast=None) -> dict[str, float]:
    """Mean logs of `model` over `batches` in eval mode, keys prefixed with `eval/`."""
    was_training = model.training
    model.eval()
    window: dict[str, list[float]] = defaultdict(list)
    device = device_of(model)
    for batch in batches:
        with autocast or nullcontext():
            _, logs = model(batch.to(device))
        for key, value in logs.items():
            window[key].append(value)
    model.train(was_training)
    return {f"eval/{k}": v for k, v in mean_logs(window).items()}


COUNTS = {"acc": "n", "acc_op": "n_op", "acc_ref": "n_ref", "tag_acc": "n_tags"}  # rate -> count
SUMMED = ("n", "n_op", "n_ref", "n_tags", "tp", "fp", "fn")  # logged counts, summed


def mean_logs(window: dict[str, list[float]]) -> dict[str, float]:
    """Mean of each logged value; accuracies weighted by their counts (`acc/X` by `n/X`, ...),
    counts summed, and F1 recomputed from the summed `tp/X`, `fp/X`, `fn/X`."""
    out = {}
    for key, values in window.items():
        kind, _, name = key.partition("/")
        if kind in SUMMED:
            out[key] = float(sum(values))
            continue
        counts = window.get(f"{COUNTS[kind]}/{name}") if kind in COUNTS and name else None
        if counts and len(counts) == len(values) and sum(counts) > 0:
            out[key] = sum(v * n for v, n in zip(values, counts, strict=True)) / sum(counts)
        else:
            out[key] = sum(values) / len(values)
    for key in list(out):
        kind, _, name = key.partition("/")
        if kind == "f1" and all(f"{c}/{name}" in out for c in ("tp", "fp", "fn")):
            tp, fp, fn = (out[f"{c}/{name}"] for c in ("tp", "fp", "fn"))
            out[key] = f1(tp, fp, fn)
    return out
