"""AdamW with weight decay where it belongs, and the warm-up + linear-decay schedule.

Weight decay applies to every matrix (linear weights, embedding tables) and never to biases or
LayerNorm parameters (every tensor with fewer than two dimensions). The reference meant the
same but passed its groups under a key AdamW does not read, so it decayed nothing
(reference note §9.2.3); `param_groups` is tested to put each tensor where it belongs.

The schedule is a pure function of the step (`lr_at`), so the only schedule state a checkpoint
needs is the step itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class OptimConfig:
    lr: float = 1e-4  # peak learning rate, reached at the end of warm-up
    weight_decay: float = 0.01  # decoupled decay on matrices (not biases / LayerNorm)
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-6  # the reference's AdamW epsilon
    warmup: float = 0.1  # share of the total steps spent warming up linearly from 0
    clip_norm: float = 1.0  # max global gradient norm; 0 disables clipping
    head_lr_scale: float = 1.0  # lr multiplier of freshly initialised parameters (param_groups)
    freeze_word_embeddings: bool = False  # keep the encoder's token table (and the MLM decoder
    # tied to it) at its initial values

    def __post_init__(self) -> None:
        if self.lr <= 0:
            raise ValueError(f"OptimConfig.lr must be positive, got {self.lr}")
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
        if self.head_lr_scale <= 0:
            raise ValueError(f"OptimConfig.head_lr_scale must be > 0, got {self.head_lr_scale}")


def param_groups(model: nn.Module, weight_decay: float, head_lr_scale: float = 1.0) -> list[dict]:
    """AdamW groups: matrices with `weight_decay`, biases and LayerNorm without. With
    `head_lr_scale` != 1 and a model that has an `encoder`, the freshly initialised parameters
    get two more groups whose lr is scaled by it (`lr_scale`): those outside the encoder (heads,
    decoders) and the encoder's own that its initialisation left new (`encoder.new_parameters`,
    e.g. the tree-position, number and format embeddings MiniLM has no weights for)."""
    encoder = getattr(model, "encoder", None)
    split_heads = head_lr_scale != 1.0 and isinstance(encoder, nn.Module)
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
        out.append({"params": params, "weight_decay": weight_decay if decay else 0.0,
                    "lr_scale": head_lr_scale if head else 1.0})  # fmt: skip
    return out


def build_optimizer(model: nn.Module, cfg: OptimConfig) -> torch.optim.AdamW:
    """AdamW over `param_groups`; with `freeze_word_embeddings` the encoder's token table
    is first set to require no gradient, so no group holds it."""
    if cfg.freeze_word_embeddings:
        encoder = getattr(model, "encoder", model)
        encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    return torch.optim.AdamW(
        param_groups(model, cfg.weight_decay, cfg.head_lr_scale),
        lr=cfg.lr,
        betas=(cfg.beta1, cfg.beta2),
        eps=cfg.eps,
    )


def lr_at(step: int, total_steps: int, cfg: OptimConfig) -> float:
    """Learning rate for update `step` (0-based): linear warm-up, then linear decay to 0."""
    warmup = int(cfg.warmup * total_steps)
    if step < warmup:
        return cfg.lr * (step + 1) / warmup
    remaining = max(1, total_steps - warmup)
    return cfg.lr * max(0.0, (total_steps - step) / remaining)


def set_lr(optimizer: torch.optim.Optimizer, lr: float) -> None:
    for group in optimizer.param_groups:
        group["lr"] = lr * group.get("lr_scale", 1.0)
