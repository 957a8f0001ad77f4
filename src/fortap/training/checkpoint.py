"""Training checkpoints a killed run resumes from on the same trajectory — never pickle.

A checkpoint is a folder `step-00000100/` under the run's `checkpoints/`:

| file | holds |
|---|---|
| `model.safetensors` | every tensor of the trained module (encoder + heads), checksummed |
| `optimizer.safetensors` | AdamW moments and step counts (`state.{i}.{key}`), torch's RNG state (`rng.torch`) |
| `trainer.json` | the step, optimizer hyper-parameters per group, the data position and its Python RNG state, anything else the loop adds |

The schedule is a function of the step (`optim.lr_at`), so it needs no file of its own.
A folder is written under a temporary name and renamed when complete, so a run killed while
saving leaves the previous checkpoint as the latest one. Loading checks every tensor's name,
shape and checksum and raises `CheckpointError` naming the file and the tensor.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import torch
from torch import nn

from fortap.errors import CheckpointError
from fortap.model.state_file import load_state, read_tensors, save_state

MODEL_FILE = "model.safetensors"
OPTIMIZER_FILE = "optimizer.safetensors"
TRAINER_FILE = "trainer.json"
RNG_KEY = "rng.torch"


def checkpoint_dir(root: str | Path, step: int) -> Path:
    return Path(root) / f"step-{step:08d}"


def latest_checkpoint(root: str | Path) -> Path | None:
    """The complete checkpoint with the highest step under `root`, or None."""
    root = Path(root)
    if not root.is_dir():
        return None
    done = [p for p in root.glob("step-*") if p.is_dir() and (p / TRAINER_FILE).is_file()]
    return max(done, key=lambda p: p.name, default=None)


def save_checkpoint(
    root: str | Path,
    step: int,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    trainer_state: dict[str, Any],
    keep: int = 2,
) -> Path:
    """Write the checkpoint of `step` atomically; keep only the newest `keep` checkpoints."""
    final = checkpoint_dir(root, step)
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_state(model, tmp / MODEL_FILE)
    tensors, groups = _optimizer_tensors(optimizer)
    tensors[RNG_KEY] = torch.get_rng_state()
    save_state(tensors, tmp / OPTIMIZER_FILE)
    state = {"step": step, "param_groups": groups, **trainer_state}
    (tmp / TRAINER_FILE).write_text(json.dumps(state, indent=1) + "\n")
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    if keep > 0:
        older = sorted(p for p in Path(root).glob("step-*") if p.is_dir() and p != final)
        for path in older[: max(0, len(older) - keep + 1)]:
            shutil.rmtree(path, ignore_errors=True)
    return final


def load_checkpoint(
    path: str | Path, model: nn.Module, optimizer: torch.optim.Optimizer | None = None
) -> dict[str, Any]:
    """Restore `model` (and `optimizer`, torch's RNG) from `path`; returns the trainer state."""
    path = Path(path)
    try:
        state = json.loads((path / TRAINER_FILE).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise CheckpointError(f"cannot read {path / TRAINER_FILE}: {err}") from None
    load_state(model, path / MODEL_FILE)
    tensors, _ = read_tensors(path / OPTIMIZER_FILE)
    if optimizer is not None:
        _restore_optimizer(optimizer, tensors, state.get("param_groups", []), path / OPTIMIZER_FILE)
    if RNG_KEY in tensors:
        torch.set_rng_state(tensors[RNG_KEY])
    return state


def _optimizer_tensors(optimizer: torch.optim.Optimizer) -> tuple[dict[str, torch.Tensor], list]:
    full = optimizer.state_dict()
    tensors = {}
    for index, entry in full["state"].items():
        for key, value in entry.items():
            if not isinstance(value, torch.Tensor):
                value = torch.tensor(value)
            tensors[f"state.{index}.{key}"] = value
    groups = [
        {k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()}
        for g in full["param_groups"]
    ]
    return tensors, groups


def _restore_optimizer(
    optimizer: torch.optim.Optimizer, tensors: dict[str, torch.Tensor], groups: list, path: Path
) -> None:
    params = [p for group in optimizer.param_groups for p in group["params"]]
    state: dict[int, dict[str, torch.Tensor]] = {}
    for name, tensor in tensors.items():
        if not name.startswith("state."):
            continue
        _, index, key = name.split(".", 2)
        i = int(index)
        if i >= len(params):
            raise CheckpointError(f"{path}: tensor {name!r} belongs to no parameter of the model")
        if key in ("exp_avg", "exp_avg_sq") and tensor.shape != params[i].shape:
            raise CheckpointError(
                f"{path}: tensor {name!r} has shape {list(tensor.shape)}, "
                f"the parameter has {list(params[i].shape)}"
            )
        state.setdefault(i, {})[key] = tensor
    if len(groups) != len(optimizer.param_groups) or any(
        len(g["params"]) != len(h["params"])
        for g, h in zip(groups, optimizer.param_groups, strict=True)
    ):
        raise CheckpointError(f"{path}: optimizer groups do not match the model's parameters")
    groups = [{k: (tuple(v) if k == "betas" else v) for k, v in g.items()} for g in groups]
    optimizer.load_state_dict({"state": state, "param_groups": groups})
