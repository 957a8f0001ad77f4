"""`ShuffledBatches`: batches of fixed examples held in memory, in epochs of shuffled order.

The fine-tuning sets are small, so their examples are built once and kept. Every epoch visits
them in an order drawn from the run's `random.Random` (`rng.sample` of all indices, appended
once when fewer than one update's worth remain), so an update may take the end of one epoch and the
start of the next. The state — the rng and the indices still to visit — is plain JSON, saved in
every checkpoint, so a resumed run draws the same batches.

Under DDP every rank holds the same rng and order; an update takes `batch_size * world`
indices and each rank keeps every `world`-th from its `rank`, so the ranks see disjoint parts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from fortap.encoding.example import Batch, Example


class ShuffledBatches:
    def __init__(
        self,
        examples: Sequence[Example],
        collate: Callable[[list[Example]], Batch],
        batch_size: int,
        rng: random.Random,
        rank: int = 0,
        world: int = 1,
    ) -> None:
        if not examples:
            raise ValueError("ShuffledBatches: no examples")
        if batch_size < 1:
            raise ValueError(f"ShuffledBatches: batch_size must be >= 1, got {batch_size}")
        if world < 1 or not 0 <= rank < world:
            raise ValueError(f"ShuffledBatches: rank {rank} must lie in [0, world={world})")
        self.examples, self.collate, self.rng = examples, collate, rng
        self.batch_size, self.rank, self.world = batch_size, rank, world
        self.order: list[int] = []

    def next_batch(self) -> Batch:
        take = self.batch_size * self.world
        if len(self.order) < take:  # one epoch more (a set smaller than a batch: short batches)
            self.order += self._epoch()
        while len(self.order) < self.world:  # every rank gets at least one example
            self.order += self._epoch()
        mine, self.order = self.order[:take][self.rank :: self.world], self.order[take:]
        return self.collate([self.examples[i] for i in mine])

    def _epoch(self) -> list[int]:
        return self.rng.sample(range(len(self.examples)), len(self.examples))

    def state_dict(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"order": list(self.order), "rng": [version, list(internal), gauss]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.order = [int(i) for i in state["order"]]
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
