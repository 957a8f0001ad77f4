"""`ExampleStream`: endless batches built afresh on every visit, with a resumable position.

Items (tables) are visited in a shuffled order that depends only on the seed and the epoch;
`make(item, rng)` builds one example per visit (so targets are re-drawn each epoch, as in
TUTA's dynamic sampling) and may return None to skip an item. The stream's state — epoch,
position and its Python RNG — is plain JSON, saved in every checkpoint.

Under DDP each of `world` processes builds the same order and visits every `world`-th item
from its `rank`, with its own rng, so the ranks see disjoint shards of every epoch. A rank's
shard may be split again among `workers` streams (`fortap.training.loader`): worker `w` visits
every `workers`-th item of it from `w`, with an rng of its own, so a stream is fixed by
(seed, rank, worker) and the worker count. One worker's stream is the rank's stream itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from fortap.encoding.example import Batch, Example

Item = TypeVar("Item")


class ExampleStream(Generic[Item]):
    def __init__(
        self,
        items: Sequence[Item],
        make: Callable[[Item, random.Random], Example | None],
        collate: Callable[[list[Example]], Batch],
        batch_size: int,
        seed: int = 0,
        rank: int = 0,
        world: int = 1,
        worker: int = 0,
        workers: int = 1,
    ) -> None:
        if not items:
            raise ValueError("ExampleStream: no items to draw examples from")
        if batch_size < 1:
            raise ValueError(f"ExampleStream: batch_size must be >= 1, got {batch_size}")
        if world < 1 or not 0 <= rank < world or len(items) < world:
            raise ValueError(
                f"ExampleStream: rank {rank} of world {world} needs 0 <= rank < world <= items"
            )
        if workers < 1 or not 0 <= worker < workers or len(items) < world * workers:
            raise ValueError(
                f"ExampleStream: worker {worker} of {workers} needs 0 <= worker < workers and "
                f"world x workers <= items ({len(items)})"
            )
        self.items, self.make, self.collate = items, make, collate
        self.batch_size, self.seed = batch_size, seed
        self.rank, self.world = rank, world
        self.worker, self.workers = worker, workers
        self.epoch, self.position = 0, 0
        name = seed if rank == 0 else f"{seed}/rank{rank}"
        self.rng = random.Random(name if workers == 1 else f"{seed}/rank{rank}/worker{worker}")
        self._order = self._shuffled(0)

    def _shuffled(self, epoch: int) -> list[int]:
        order = list(range(len(self.items)))
        random.Random(f"{self.seed}/{epoch}").shuffle(order)
        return order[self.rank :: self.world][self.worker :: self.workers]

    def next_example(self) -> Example:
        for _ in range(2 * len(self.items) + 1):
            if self.position >= len(self._order):
                self.epoch, self.position = self.epoch + 1, 0
                self._order = self._shuffled(self.epoch)
            item = self.items[self._order[self.position]]
            self.position += 1
            example = self.make(item, self.rng)
            if example is not None:
                return example
        raise ValueError("ExampleStream: no item yields an example")

    def next_batch(self) -> Batch:
        return self.collate([self.next_example() for _ in range(self.batch_size)])

    def state_dict(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {
            "epoch": self.epoch,
            "position": self.position,
            "rng": [version, list(internal), gauss],
        }

    def close(self) -> None:
        """Nothing to stop: the stream runs in the caller's process (a `BatchLoader` has
        workers)."""

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.epoch, self.position = int(state["epoch"]), int(state["position"])
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
        self._order = self._shuffled(self.epoch)
