"""Keeping the best evaluated state of a run (early stopping on dev, `TrainConfig.keep_best`).

After every evaluation the loop offers the logged entry; when the named metric (e.g.
`eval/loss/formula`) is lower than any before (or, in mode "max", e.g. for
`eval/formula_top1`, higher), a copy of the model's tensors is kept in memory.
When the run ends those tensors are loaded back, so the caller gets the best state, not the
last. A killed run must resume to the same choice: every checkpoint records the best value and
step (`state()`), and the kept tensors are written to `best.safetensors` in the run folder
(atomically, before the checkpoint that refers to them). Replay is deterministic, so a newer
file than the checkpoint expects holds the tensors the replay would keep anyway.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import torch
from torch import nn

from fortap.errors import CheckpointError
from fortap.model.state_file import read_tensors, save_state

BEST_FILE = "best.safetensors"


class BestState:
    """The best value of `metric` seen so far (lowest, or highest with `mode` "max") and the
    model's tensors at that moment."""

    def __init__(self, metric: str, run_dir: str | Path, mode: str = "min") -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"BestState: mode must be min or max, got {mode!r}")
        self.metric, self.mode, self.path = metric, mode, Path(run_dir) / BEST_FILE
        self.sign = 1.0 if mode == "min" else -1.0  # values compared as sign * value, lower wins
        self.value, self.step = self.sign * math.inf, -1
        self.tensors: dict[str, torch.Tensor] | None = None
        self.dirty = False  # kept tensors not yet written

    def offer(self, entry: dict[str, Any], model: nn.Module, step: int) -> None:
        """Keep `model`'s tensors when `entry[metric]` beats the best so far (strictly)."""
        value = entry.get(self.metric)
        if value is None or not self.sign * value < self.sign * self.value:
            return
        self.value, self.step = float(value), step
        self.tensors = {k: v.detach().clone() for k, v in model.state_dict().items()}
        self.dirty = True

    def save(self) -> None:
        """Write the kept tensors (only when they changed since the last write)."""
        if self.tensors is None or not self.dirty:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        save_state(self.tensors, tmp)
        tmp.replace(self.path)
        self.dirty = False

    def state(self) -> dict[str, Any]:
        """What a checkpoint records (JSON)."""
        return {"metric": self.metric, "mode": self.mode, "value": self.value, "step": self.step}

    def load(self, state: dict[str, Any] | None) -> None:
        """Restore from a checkpoint's record (and `best.safetensors` when one was kept)."""
        if not state or state.get("step", -1) < 0:
            return
        kept = (state.get("metric"), state.get("mode", "min"))
        if kept != (self.metric, self.mode):
            raise CheckpointError(
                f"{self.path.parent}: the checkpoint kept the best {kept[0]!r} ({kept[1]}), "
                f"this run keeps {self.metric!r} ({self.mode})"
            )
        self.value, self.step = float(state["value"]), int(state["step"])
        self.tensors, _ = read_tensors(self.path)
        self.dirty = False

    def restore(self, model: nn.Module) -> None:
        """Load the kept tensors into `model` (nothing when no evaluation ran)."""
        if self.tensors is not None:
            model.load_state_dict(self.tensors)
