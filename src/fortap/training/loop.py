"""One training loop for pretraining and fine-tuning (`train`).

The loop knows three things: a module whose `forward(batch)` returns `(loss, logs)`, a
`BatchSource` that hands out batches and can save and restore its position, and the configs.
Logs are a flat dict of floats (`loss/mlm`, `acc/mlm`, `n/mlm`, ...); accuracies are averaged
weighted by their `n/` counts.
Each update accumulates `grad_accum` micro-batches, clips the global gradient norm, sets the
learning rate from the schedule and steps AdamW. Every `log_every` updates it appends the mean
logs to `metrics.jsonl`; every `eval_every` updates it evaluates on fixed batches; every
`save_every` updates (and at the end) it writes a checkpoint from which a killed run resumes on
the same trajectory (model, optimizer, RNG states, data position).

bf16 autocast is used only where the CPU has AMX tiles ("auto"), or when asked ("on").
Nothing here is global: a DDP wrapper (torchrun) can wrap the module and shard the source.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import torch
from torch import nn

from fortap.encoding.example import Batch
from fortap.training.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
from fortap.training.optim import OptimConfig, build_optimizer, lr_at, set_lr

METRICS_FILE = "metrics.jsonl"


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 1000  # optimizer updates in the whole run (the schedule's length)
    batch_size: int = 8  # examples per micro-batch
    grad_accum: int = 1  # micro-batches per update
    log_every: int = 10  # updates between metrics.jsonl lines
    eval_every: int = 0  # updates between evaluations; 0 = only at the end
    save_every: int = 0  # updates between checkpoints; 0 = only at the end
    keep_checkpoints: int = 2  # newest checkpoints kept on disk
    seed: int = 0  # seeds the model init, dropout and the data order
    bf16: Literal["auto", "on", "off"] = "auto"  # autocast to bf16 ("auto": only with AMX)
    progress: bool = True  # show a rich progress bar

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "grad_accum", "log_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"TrainConfig.{name} must be >= 1, got {getattr(self, name)}")
        for name in ("eval_every", "save_every", "keep_checkpoints"):
            if getattr(self, name) < 0:
                raise ValueError(f"TrainConfig.{name} must be >= 0, got {getattr(self, name)}")
        if self.bf16 not in ("auto", "on", "off"):
            raise ValueError(f"TrainConfig.bf16 must be auto, on or off, got {self.bf16!r}")


class BatchSource(Protocol):
    """Endless batches with a resumable position (JSON-serialisable state)."""

    def next_batch(self) -> Batch: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


@dataclass
class TrainResult:
    step: int  # updates done when the run stopped
    history: list[dict[str, Any]] = field(default_factory=list)  # every metrics.jsonl line
    checkpoint: Path | None = None  # the last checkpoint written
    resumed_from: Path | None = None


def use_bf16(mode: str) -> bool:
    if mode == "on":
        return True
    return mode == "auto" and bool(torch.cpu._is_amx_tile_supported())


def train(
    model: nn.Module,
    data: BatchSource,
    cfg: TrainConfig,
    optim_cfg: OptimConfig,
    out_dir: str | Path,
    eval_batches: Sequence[Batch] = (),
    resume: bool = True,
    stop_at: int | None = None,
    extra_state: dict[str, Any] | None = None,
) -> TrainResult:
    """Train `model` for `cfg.steps` updates (or until `stop_at`), resuming from `out_dir`."""
    torch.set_flush_denormal(True)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ckpt_root = out_dir / "checkpoints"
    optimizer = build_optimizer(model, optim_cfg)
    result = TrainResult(step=0)
    latest = latest_checkpoint(ckpt_root) if resume else None
    if latest is not None:
        state = load_checkpoint(latest, model, optimizer)
        data.load_state_dict(state["data"])
        result.step, result.resumed_from = int(state["step"]), latest
    autocast = torch.autocast("cpu", dtype=torch.bfloat16) if use_bf16(cfg.bf16) else nullcontext()
    end = min(cfg.steps, stop_at) if stop_at is not None else cfg.steps
    window: dict[str, list[float]] = defaultdict(list)
    tokens, clock = 0, time.perf_counter()

    def checkpoint() -> None:
        trainer = {"data": data.state_dict(), **(extra_state or {})}
        result.checkpoint = save_checkpoint(
            ckpt_root, result.step, model, optimizer, trainer, keep=cfg.keep_checkpoints
        )

    with (
        _progress(cfg.progress, cfg.steps, result.step) as advance,
        open(out_dir / METRICS_FILE, "a") as metrics,
    ):

        def log(entry: dict[str, Any]) -> None:
            result.history.append(entry)
            metrics.write(json.dumps(entry) + "\n")
            metrics.flush()

        while result.step < end:
            model.train()
            optimizer.zero_grad(set_to_none=True)
            for _ in range(cfg.grad_accum):
                batch = data.next_batch()
                with autocast:
                    loss, logs = model(batch)
                (loss / cfg.grad_accum).backward()
                tokens += int(batch.token_mask.sum())
                logs.setdefault("loss", float(loss.detach()))
                for key, value in logs.items():
                    window[key].append(value)
            norm = _clip(model, optim_cfg.clip_norm)
            lr = lr_at(result.step, cfg.steps, optim_cfg)
            set_lr(optimizer, lr)
            optimizer.step()
            result.step += 1
            window["grad_norm"].append(norm)
            advance(result.step, window["loss"][-1])
            if result.step % cfg.log_every == 0 or result.step == end:
                elapsed = max(time.perf_counter() - clock, 1e-9)
                entry = {"step": result.step, "lr": lr, **_means(window)}
                entry["tokens_per_s"] = tokens / elapsed
                log(entry)
                window.clear()
                tokens, clock = 0, time.perf_counter()
            last = result.step == end
            if eval_batches and ((cfg.eval_every and result.step % cfg.eval_every == 0) or last):
                log({"step": result.step, **evaluate(model, eval_batches, autocast)})
            if (cfg.save_every and result.step % cfg.save_every == 0) or last:
                checkpoint()
    return result


@torch.no_grad()
def evaluate(model: nn.Module, batches: Sequence[Batch], autocast=None) -> dict[str, float]:
    """Mean logs of `model` over `batches` in eval mode, keys prefixed with `eval/`."""
    was_training = model.training
    model.eval()
    window: dict[str, list[float]] = defaultdict(list)
    for batch in batches:
        with autocast or nullcontext():
            _, logs = model(batch)
        for key, value in logs.items():
            window[key].append(value)
    model.train(was_training)
    return {f"eval/{k}": v for k, v in _means(window).items()}


def _means(window: dict[str, list[float]]) -> dict[str, float]:
    """Mean of each logged value; accuracies weighted by their counts (`n/NAME`)."""
    out = {}
    for key, values in window.items():
        if key.startswith("n/"):
            out[key] = float(sum(values))
            continue
        name = key.split("/", 1)[1] if key.startswith("acc/") else None
        counts = window.get(f"n/{name}") if name else None
        if counts and len(counts) == len(values) and sum(counts) > 0:
            out[key] = sum(v * n for v, n in zip(values, counts, strict=True)) / sum(counts)
        else:
            out[key] = sum(values) / len(values)
    return out


def _clip(model: nn.Module, max_norm: float) -> float:
    params = [p for p in model.parameters() if p.grad is not None]
    if not params:
        return 0.0
    if max_norm > 0:
        norm = torch.nn.utils.clip_grad_norm_(params, max_norm)
    else:
        norm = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in params]))
    value = float(norm)
    return value if math.isfinite(value) else float("nan")


class _progress:
    """A rich progress bar (or nothing); `advance(step, loss)` moves it."""

    def __init__(self, enabled: bool, total: int, start: int) -> None:
        self.enabled, self.total, self.start = enabled, total, start

    def __enter__(self):
        if not self.enabled:
            return lambda step, loss: None
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn("train"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]:.4f}"),
            TimeRemainingColumn(),
        )
        self.bar.__enter__()
        task = self.bar.add_task("train", total=self.total, completed=self.start, loss=float("nan"))
        return lambda step, loss: self.bar.update(task, completed=step, loss=loss)

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self.bar.__exit__(*exc)
