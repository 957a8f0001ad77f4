"""One training loop for pretraining and fine-tuning (`train`).

The loop knows three things: a module whose `forward(batch)` returns `(loss, logs)`, a
`BatchSource` that hands out batches and can save and restore its position, and the configs.
Logs are a flat dict of floats (`loss/mlm`, `acc/mlm`, `n/mlm`, ...), averaged by
`fortap.training.logs.mean_logs`.
Each update accumulates `grad_accum` micro-batches, clips the global gradient norm, sets the
learning rate from the schedule and steps AdamW. Every `log_every` updates it appends the mean
logs to `metrics.jsonl` (each line with its `step` and the training `examples` seen by then,
updates x batch x grad_accum x ranks); every `eval_every` updates it evaluates on fixed
batches (and a task's `on_eval` adds its own dev metrics, e.g. decoded accuracy); every
`save_every` updates (and at the end) it writes a checkpoint from which a killed run resumes on
the same trajectory (model, optimizer, RNG states, data position). `max_minutes` stops a run
on time; with `pace_by_clock` the schedule also keeps up with the clock (`schedule_step`).
A task may pass `on_step(step)`, called before each update with its 0-based index (e.g. to
switch a loss on after a warm-up; it must depend on the step only, so a resumed run does the
same). With `keep_best` (an evaluated metric; lower is better, or higher with
`keep_best_mode` "max") the model ends in the state where that metric was best, not the last
(`fortap.training.best`).

bf16 autocast is used only where the CPU has AMX tiles ("auto"), or when asked ("on"); on a
GPU (`device` "cuda") "auto" is bf16 (`model.precision.autocast_for`). The model moves to
`device` before the optimizer is built, and every batch follows it.
Under torchrun (`dist`, see `fortap.training.distributed`) the module is wrapped in DDP, the
source is the rank's shard, and only rank 0 logs, evaluates and saves.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import torch
from torch import nn

from fortap.encoding.example import Batch
from fortap.model.precision import autocast_for
from fortap.training.best import BestState
from fortap.training.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
from fortap.training.distributed import Dist, barrier, gather, no_sync, wrap
from fortap.training.logs import Meter, evaluate
from fortap.training.optim import OptimConfig, build_optimizer, lr_factor, peaks, set_lr

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
    device: str = "cpu"  # where the model trains: "cpu", "cuda" or "cuda:N"
    progress: bool = True  # show a rich progress bar
    max_minutes: float = 0.0  # stop (with a checkpoint) after this wall-clock time; 0 = no limit
    pace_by_clock: bool = False  # with max_minutes: the schedule keeps up with the clock
    keep_best: str = ""  # evaluated metric (e.g. eval/loss/formula): the run ends in the state
    # where it was best; "" = the last state
    keep_best_mode: Literal["min", "max"] = "min"  # best = lowest (a loss) or highest (a top-1)

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "grad_accum", "log_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"TrainConfig.{name} must be >= 1, got {getattr(self, name)}")
        for name in ("eval_every", "save_every", "keep_checkpoints", "max_minutes"):
            if getattr(self, name) < 0:
                raise ValueError(f"TrainConfig.{name} must be >= 0, got {getattr(self, name)}")
        if self.bf16 not in ("auto", "on", "off"):
            raise ValueError(f"TrainConfig.bf16 must be auto, on or off, got {self.bf16!r}")
        if self.device.split(":")[0] not in ("cpu", "cuda"):
            raise ValueError(f"TrainConfig.device must be cpu, cuda or cuda:N, got {self.device!r}")
        if self.keep_best_mode not in ("min", "max"):
            raise ValueError(
                f"TrainConfig.keep_best_mode must be min or max, got {self.keep_best_mode!r}"
            )


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
    dist: Dist | None = None,
    on_step: Callable[[int], None] | None = None,
    on_eval: Callable[[nn.Module, int], dict[str, float]] | None = None,
) -> TrainResult:
    """Train `model` for `cfg.steps` updates (or until `stop_at` / `cfg.max_minutes`),
    resuming from `out_dir`. With `dist` (torchrun) the model runs under DDP, `data` is this
    rank's shard, and only rank 0 logs, evaluates and writes checkpoints (and so only rank 0's
    model ends in the `keep_best` state). `on_step(step)` runs before each update;
    `on_eval(model, step)` runs at each evaluation (rank 0) and its values join the logged
    entry (e.g. a task's decoding metrics on dev, which `keep_best` may name)."""
    torch.set_flush_denormal(True)
    dist = dist or Dist()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ckpt_root = out_dir / "checkpoints"
    model.to(cfg.device)
    optimizer = build_optimizer(model, optim_cfg)
    rates = peaks(optimizer)  # the config's, also after a checkpoint replaced the groups
    result = TrainResult(step=0)
    best = BestState(cfg.keep_best, out_dir, cfg.keep_best_mode) if cfg.keep_best else None
    latest = latest_checkpoint(ckpt_root) if resume else None
    if latest is not None:
        state = load_checkpoint(latest, model, optimizer)
        if best is not None and dist.is_main:
            best.load(state.get("best"))
        ranks = state.get("data_ranks")
        data.load_state_dict(ranks[dist.rank] if ranks else state["data"])
        if dist.enabled and state.get("torch_rng_ranks"):  # each rank's own dropout stream
            rng = state["torch_rng_ranks"][dist.rank]
            torch.set_rng_state(torch.tensor(rng, dtype=torch.uint8))
        result.step, result.resumed_from = int(state["step"]), latest
    net = wrap(model, dist)
    autocast = autocast_for(cfg.device, cfg.bf16)
    end = min(cfg.steps, stop_at) if stop_at is not None else cfg.steps
    meter = Meter(dist.world)
    started = time.perf_counter()

    def examples(step: int) -> int:  # training examples seen after `step` updates, all ranks
        return step * cfg.batch_size * cfg.grad_accum * dist.world

    def checkpoint() -> None:
        states = gather(data.state_dict(), dist)
        rngs = gather(torch.get_rng_state().tolist(), dist) if dist.enabled else None
        if dist.is_main:
            trainer = {"data": states[0], "data_ranks": states, **(extra_state or {})}
            if best is not None:
                best.save()  # before the checkpoint that refers to it
                trainer["best"] = best.state()
            if rngs is not None:
                trainer["torch_rng_ranks"] = rngs
            result.checkpoint = save_checkpoint(
                ckpt_root, result.step, model, optimizer, trainer, keep=cfg.keep_checkpoints
            )
        barrier(dist)

    with (
        _progress(cfg.progress and dist.is_main, cfg.steps, result.step) as advance,
        open(out_dir / METRICS_FILE, "a") if dist.is_main else nullcontext() as metrics,
    ):

        def log(entry: dict[str, Any]) -> None:
            if metrics is not None:
                entry = {"step": entry["step"], "examples": examples(entry["step"]), **entry}
                result.history.append(entry)
                metrics.write(json.dumps(entry) + "\n")
                metrics.flush()

        elapsed = 0.0
        while result.step < end:
            at = schedule_step(result.step, elapsed, cfg)
            if on_step is not None:
                on_step(result.step)
            _update(net, data, optimizer, (cfg, optim_cfg, rates), at, autocast, meter)
            result.step += 1
            advance(result.step, meter.window["loss"][-1])
            elapsed = _elapsed(started, dist) if cfg.max_minutes > 0 else 0.0
            out_of_time = cfg.max_minutes > 0 and elapsed >= 60 * cfg.max_minutes
            last = result.step == end or out_of_time
            if result.step % cfg.log_every == 0 or last:
                log({"step": result.step, **meter.flush()})
            periodic = bool(cfg.eval_every) and result.step % cfg.eval_every == 0
            due = periodic or last
            if (eval_batches or on_eval) and dist.is_main and due:
                entry = {"step": result.step, **evaluate(model, eval_batches, autocast)}
                if on_eval is not None:
                    entry |= on_eval(model, result.step)
                log(entry)
                # not the evaluation of a `stop_at` stop: the resumed run would not make it
                if best is not None and (periodic or result.step == cfg.steps or out_of_time):
                    best.offer(entry, model, result.step)
            if (cfg.save_every and result.step % cfg.save_every == 0) or last:
                checkpoint()
            if out_of_time:
                break
    if best is not None:
        best.restore(model)
    return result


def schedule_step(step: int, elapsed: float, cfg: TrainConfig) -> int:
    """Where update `step` sits in the learning-rate schedule: `step` itself, or with
    `pace_by_clock` (and `max_minutes`) the step the elapsed share of the time limit stands for
    when that is further on, so the rate has decayed to 0 when the time is up however the
    speed was guessed when `steps` was set. Not resumable step for step: the clock restarts
    with a resumed run, as its time limit does."""
    if not (cfg.pace_by_clock and cfg.max_minutes > 0):
        return step
    return max(step, min(cfg.steps - 1, int(cfg.steps * elapsed / (60 * cfg.max_minutes))))


def _update(net, data, optimizer, configs, step, autocast, meter) -> None:
    """One optimizer update at schedule step `step`: `grad_accum` micro-batches (DDP syncs only
    the last), clip, step. `configs`: the `TrainConfig`, `OptimConfig` and groups' peaks."""
    cfg, optim_cfg, rates = configs
    net.train()
    optimizer.zero_grad(set_to_none=True)
    for i in range(cfg.grad_accum):
        batch = data.next_batch().to(cfg.device)
        with no_sync(net, i < cfg.grad_accum - 1):
            with autocast:
                loss, logs = net(batch)
            (loss / cfg.grad_accum).backward()
        logs.setdefault("loss", float(loss.detach()))
        meter.add(logs, batch)
    norm = _clip(net, optim_cfg.clip_norm)
    factor = lr_factor(step, cfg.steps, optim_cfg.warmup)
    set_lr(optimizer, factor, rates)
    optimizer.step()
    meter.window["grad_norm"].append(norm)
    meter.lr = optim_cfg.lr * factor  # the heads' rate (the encoder's is encoder_lr's share)


def _elapsed(started: float, dist: Dist) -> float:
    """Seconds since `started` on rank 0's clock (it decides for every rank, so all stop and
    schedule together)."""
    seconds = torch.tensor([time.perf_counter() - started], dtype=torch.float64)
    if dist.enabled:
        torch.distributed.broadcast(seconds, src=0)
    return float(seconds.item())


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
