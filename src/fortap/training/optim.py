"""AdamW with weight decay where it belongs, two peak rates, and the warm-up + linear-decay schedule.

Weight decay applies to every matrix (linear weights, embedding tables) and never to biases or
LayerNorm parameters (every tensor with fewer than two dimensions). The reference meant the
same but passed its groups under a key AdamW does not read, so it decayed nothing
(reference note §9.2.3); `param_groups` is tested to put each tensor where it belongs.

Two peak rates, each the number a run's config holds: `lr` for the heads (an objective's, a
task's) and the encoder's freshly initialised tables (`encoder.new_parameters`), `encoder_lr`
for the encoder's other weights (0 = `lr`: one rate for every weight). Each AdamW group keeps
its peak as `peak_lr`, so a checkpoint's `trainer.json` shows them.

The schedule is a pure function of the step (`lr_factor`), so the only schedule state a
checkpoint needs is the step itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class OptimConfig:
    lr: float = 1e-4  # peak rate of the heads and the encoder's new tables (end of warm-up)
    encoder_lr: float = 0.0  # peak rate of the encoder's other weights; 0 = lr
    weight_decay: float = 0.01  # decoupled decay on matrices (not biases / LayerNorm)
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-6  # the reference's AdamW epsilon
    warmup: float = 0.1  # share of the total steps spent warming up linearly from 0
    clip_norm: float = 1.0  # max global gradient norm; 0 disables clipping
    freeze_word_embeddings: bool = False  # keep the encoder's token table (and the MLM decoder
    # tied to it) at its initial values

    def __post_init__(self) -> None:
        if self.lr <= 0:
            raise ValueError(f"OptimConfig.lr must be positive, got {self.lr}")
        if self.encoder_lr < 0:
            raise ValueError(f"OptimConfig.encoder_lr must be >= 0 (0 = lr), got {self.encoder_lr}")
        if self.weight_decay < 0:
            raise ValueError(f"OptimConfig.weight_decay must be >= 0, got {self.weight_decay}")
        for name in ("beta1", "beta2"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"OptimConfig.{name} must be in [0, 1), got {getattr(self, name)}")
        if self.eps <= 0:
            raise ValueError(f"OptimConfig.eps must be positive, got {self.eps}")
        if not 0.0 <= self.warmup <= 1.0:
            raise ValueError(f"OptimConfig.warmup must be in [0, 1], got {self.warmup}")
        if self.clip_norm < 0:
            raise ValueError(f"OptimConfig.clip_norm must be >= 0, got {self.clip_norm}")

    @property
    def encoder_rate(self) -> float:
        """The encoder's peak rate (`encoder_lr`, or `lr` when it is 0)."""
        return self.encoder_lr or self.lr


def param_groups(
    model: nn.Module, weight_decay: float, lr: float, encoder_lr: float | None = None
) -> list[dict]:
    """AdamW groups: matrices with `weight_decay`, biases and LayerNorm without, each with its
    `peak_lr`. With `encoder_lr` other than `lr` and a model that has an `encoder`, the heads
    (parameters outside the encoder) and the encoder's own that its initialisation left new
    (`encoder.new_parameters`, e.g. the tree-position, number and format embeddings MiniLM has
    no weights for) get two more groups at `lr`; the encoder's other weights are at
    `encoder_lr`. Otherwise every group is at `lr`."""
    encoder = getattr(model, "encoder", None)
    encoder_lr = lr if encoder_lr is None else encoder_lr
    split_heads = encoder_lr != lr and isinstance(encoder, nn.Module)
    new = frozenset(getattr(encoder, "new_parameters", ()))
    groups = {(d, h): [] for d in (True, False) for h in (False, True)}
    for name, param in model.named_parameters():
        if param.requires_grad:
            inner = name.removeprefix("encoder.")
            head = split_heads and (inner == name or inner in new)
            groups[(param.dim() >= 2, head)].append(param)
    out = []
    for (decay, head), params in groups.items():
        if head and not params:
            continue
        peak = lr if head or not split_heads else encoder_lr
        out.append({"params": params, "weight_decay": weight_decay if decay else 0.0,
                    "peak_lr": peak, "lr": peak})  # fmt: skip
    return out


def build_optimizer(model: nn.Module, cfg: OptimConfig) -> torch.optim.AdamW:
    """AdamW over `param_groups`; with `freeze_word_embeddings` the encoder's token table
    is first set to require no gradient, so no group holds it."""
    if cfg.freeze_word_embeddings:
        encoder = getattr(model, "encoder", model)
        encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    return torch.optim.AdamW(
        param_groups(model, cfg.weight_decay, cfg.lr, cfg.encoder_rate),
        lr=cfg.lr,
        betas=(cfg.beta1, cfg.beta2),
        eps=cfg.eps,
    )


def lr_factor(step: int, total_steps: int, warmup: float) -> float:
    """The schedule at update `step` (0-based), a share of the peak: linear warm-up over
    `warmup` of the steps, then linear decay to 0."""
    steps = int(warmup * total_steps)
    if step < steps:
        return (step + 1) / steps
    remaining = max(1, total_steps - steps)
    return max(0.0, (total_steps - step) / remaining)


def lr_at(step: int, total_steps: int, cfg: OptimConfig) -> float:
    """The heads' learning rate (`cfg.lr`) at update `step`."""
    return cfg.lr * lr_factor(step, total_steps, cfg.warmup)


def peaks(optimizer: torch.optim.Optimizer) -> list[float]:
    """Each group's peak rate, in group order."""
    return [group["peak_lr"] for group in optimizer.param_groups]


def set_lr(
    optimizer: torch.optim.Optimizer, factor: float, peak: list[float] | None = None
) -> None:
    """Every group at `factor` of its peak (`peak`, in group order, or the groups' own
    `peak_lr`; restoring a checkpoint replaces the groups, so the loop hands its peaks in)."""
    peak = peaks(optimizer) if peak is None else peak
    for group, top in zip(optimizer.param_groups, peak, strict=True):
        group["peak_lr"], group["lr"] = top, top * factor
