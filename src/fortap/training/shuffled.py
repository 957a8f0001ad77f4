"""`ShuffledBatches`: batches of fixed examples held in memory, in epochs of shuffled order.

The fine-tuning sets are small, so their examples are built once and kept. Every epoch visits
them in an order drawn from the run's `random.Random` (`rng.sample` of all indices, appended
once when fewer than one update's worth remain), so an update may take the end of one epoch and the
start of the next. The state — the rng and the indices still to visit — is plain JSON, saved in
every checkpoint, so a resumed run draws the same batches.

Under DDP every rank holds the same rng and order; an update takes `batch_size * world`
indices and each rank keeps every `world`-th from its `rank`, so the ranks see disjoint parts.

With `draw`, a task makes each drawn example itself (e.g. augmented anew every time):
`draw(index, serial)` gets the example's index and the draw's serial number, counted over
all ranks from the start of the run (0, 1, ...). The count is part of the state, so a resumed
run hands the same serial numbers to the same draws.
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
        draw: Callable[[int, int], Example] | None = None,
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
        self.draw, self.drawn = draw, 0  # the draws handed out so far, all ranks

    def next_batch(self) -> Batch:
        take = self.batch_size * self.world
        if len(self.order) < take:  # one epoch more (a set smaller than a batch: short batches)
            self.order += self._epoch()
        while len(self.order) < self.world:  # every rank gets at least one example
            self.order += self._epoch()
        window = self.order[:take]  # (short when the whole set is smaller than a batch)
        mine = list(enumerate(window, start=self.drawn))[self.rank :: self.world]
        self.order, self.drawn = self.order[take:], self.drawn + len(window)
        if self.draw is None:
            return self.collate([self.examples[i] for _, i in mine])
        return self.collate([self.draw(i, serial) for serial, i in mine])

    def _epoch(self) -> list[int]:
        return self.rng.sample(range(len(self.examples)), len(self.examples))

    def state_dict(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {
            "order": list(self.order), "rng": [version, list(internal), gauss], "drawn": self.drawn
        }  # fmt: skip

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.order = [int(i) for i in state["order"]]
        self.drawn = int(state.get("drawn", 0))  # checkpoints written before `draw` have none
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
