"""Many processes under `torchrun`: the process group, the DDP wrapper, rank-aware helpers.

`torchrun --nproc-per-node N -m fortap pretrain ...` sets `RANK`, `WORLD_SIZE`, `LOCAL_RANK`,
`MASTER_ADDR` and `MASTER_PORT`; `init_from_env` reads them and joins the group (gloo on CPU,
NCCL when CUDA is there). Without them it returns the single-process `Dist` and nothing else
changes. Every rank builds the same model from the same seed; `wrap` puts it under
`DistributedDataParallel`, which averages gradients in `backward`. The example stream is sharded
by rank (`ExampleStream(rank=, world=)`); only rank 0 logs, evaluates and writes checkpoints,
and every rank waits at a barrier after a save so nobody runs ahead of a checkpoint.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as torch_dist
from torch import nn


@dataclass(frozen=True)
class Dist:
    """This process's place in the group (rank 0 of 1 when not distributed)."""

    rank: int = 0
    world: int = 1
    local_rank: int = 0

    def __post_init__(self) -> None:
        if self.world < 1 or not 0 <= self.rank < self.world:
            raise ValueError(f"Dist: rank {self.rank} must lie in [0, world={self.world})")

    @property
    def enabled(self) -> bool:
        return self.world > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def init_from_env(env: dict[str, str] | None = None) -> Dist:
    """Join the process group described by torchrun's variables; single process without them."""
    env = dict(os.environ if env is None else env)
    world = int(env.get("WORLD_SIZE", "1"))
    if world <= 1:
        return Dist()
    dist = Dist(int(env["RANK"]), world, int(env.get("LOCAL_RANK", "0")))
    if not torch_dist.is_initialized():
        backend = "nccl" if torch.cuda.is_available() else "gloo"
        if backend == "nccl":
            torch.cuda.set_device(dist.local_rank)
        torch_dist.init_process_group(backend, rank=dist.rank, world_size=world)
    return dist


def wrap(model: nn.Module, dist: Dist) -> nn.Module:
    """`model` under DDP when distributed (parameters broadcast from rank 0), else itself."""
    if not dist.enabled:
        return model
    from torch.nn.parallel import DistributedDataParallel

    device_ids = [dist.local_rank] if torch.cuda.is_available() else None
    return DistributedDataParallel(model, device_ids=device_ids, find_unused_parameters=True)


def no_sync(model: nn.Module, skip: bool):
    """Skip DDP's gradient all-reduce for an accumulation micro-batch that is not the last."""
    return model.no_sync() if skip and hasattr(model, "no_sync") else nullcontext()


def barrier(dist: Dist) -> None:
    if dist.enabled:
        torch_dist.barrier()


def gather(value: Any, dist: Dist) -> list[Any]:
    """Every rank's `value` (any picklable object produced by our own code), in rank order."""
    if not dist.enabled:
        return [value]
    out: list[Any] = [None] * dist.world
    torch_dist.all_gather_object(out, value)
    return out


def shutdown(dist: Dist) -> None:
    if dist.enabled and torch_dist.is_initialized():
        torch_dist.destroy_process_group()
