"""`BatchLoader`: the batches of N `ExampleStream`s, each built ahead in a worker process.

The rank's stream is split among `workers` streams (`ExampleStream(worker=, workers=)`), one
per process. Update `i` takes worker `i mod N`'s next batch, so the batches come in a fixed
order for a (seed, rank, worker count), however fast each worker runs. A worker keeps up to
`prefetch` batches ready; each comes with the worker's stream state after it. The loader's
state (JSON, in every checkpoint) is each worker's state after the last batch *taken* from it
and whose turn is next, so a resumed run restarts the workers where the taken batches end, and
the stream goes on as if it had never stopped. A checkpoint of a single in-process stream
resumes a one-worker loader and back (the same stream).

Workers start on the first batch (after any `load_state_dict`), forked where the platform
allows, so they share the decoded samples with this process instead of copying them. Batches
travel as numpy arrays (plain pickles, no shared-memory handles), and the tensors are rebuilt
here. A worker that fails raises its traceback here; a worker whose parent is gone stops.
"""

from __future__ import annotations

import dataclasses
import gc
import multiprocessing as mp
import os
import queue
import signal
import traceback
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from fortap.encoding.example import Batch
from fortap.errors import FortapError
from fortap.training.stream import ExampleStream

POLL_S = 1.0  # how often a waiting worker checks its parent, and the loader its workers


def batch_source(
    items: Sequence,
    make,
    collate,
    batch_size: int,
    seed: int = 0,
    rank: int = 0,
    world: int = 1,
    workers: int = 0,
    prefetch: int = 2,
) -> ExampleStream | BatchLoader:
    """A rank's train batches: one `ExampleStream` built in this process (`workers` 0), or a
    `BatchLoader` of `workers` streams built in worker processes."""
    if not workers:
        return ExampleStream(items, make, collate, batch_size, seed, rank, world)
    streams = [ExampleStream(items, make, collate, batch_size, seed, rank, world, w, workers)
               for w in range(workers)]  # fmt: skip
    return BatchLoader(streams, prefetch)


class BatchLoader:
    """Batches of `streams` (one per worker, see module doc) built in worker processes."""

    def __init__(self, streams: Sequence[ExampleStream], prefetch: int = 2) -> None:
        if not streams:
            raise ValueError("BatchLoader: no streams")
        if prefetch < 1:
            raise ValueError(f"BatchLoader: prefetch must be >= 1, got {prefetch}")
        self.streams, self.prefetch = list(streams), prefetch
        self.states = [s.state_dict() for s in self.streams]  # after the last batch taken
        self.turn = 0
        self._workers: list[tuple[Any, Any]] = []  # (process, queue)

    def next_batch(self) -> Batch:
        if not self._workers:
            self._start()
        process, batches = self._workers[self.turn]
        while True:
            try:
                kind, payload, state = batches.get(timeout=POLL_S)
                break
            except queue.Empty:
                if not process.is_alive():
                    raise FortapError(
                        f"data worker {self.turn} stopped (exit code {process.exitcode})"
                    ) from None
        if kind == "error":
            self.close()
            raise FortapError(f"data worker {self.turn} failed:\n{payload}")
        self.states[self.turn] = state
        self.turn = (self.turn + 1) % len(self.streams)
        return _tensors(payload)

    def state_dict(self) -> dict[str, Any]:
        return {"workers": len(self.streams), "turn": self.turn, "streams": list(self.states)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if "streams" not in state:  # a single in-process stream's state
            state = {"workers": 1, "turn": 0, "streams": [state]}
        if state["workers"] != len(self.streams):
            raise FortapError(
                f"the checkpoint's data stream was built by {state['workers']} worker(s); "
                f"resume it with data.workers={state['workers']}, not {len(self.streams)}"
            )
        self.close()
        self.states, self.turn = list(state["streams"]), int(state["turn"])

    def close(self) -> None:
        """Stop the workers (the next batch starts them again where the taken ones end)."""
        for process, _ in self._workers:
            process.terminate()
        for process, _ in self._workers:
            process.join()
        self._workers = []

    def __del__(self) -> None:
        if self._workers:
            self.close()

    def _start(self) -> None:
        context = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        for stream, state in zip(self.streams, self.states, strict=True):
            stream.load_state_dict(state)
            batches = context.Queue(self.prefetch)
            process = context.Process(
                target=_work, args=(stream, batches, os.getpid()), daemon=True
            )
            process.start()
            self._workers.append((process, batches))


def _work(stream: ExampleStream, batches, parent: int) -> None:
    """A worker's life: build batches in stream order, each sent with the state after it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    torch.set_num_threads(1)
    gc.freeze()  # what came with the fork stays out of collections: no traversal, no page copies
    try:
        while True:
            batch = _arrays(stream.next_batch())
            item = ("batch", batch, stream.state_dict())
            while True:
                try:
                    batches.put(item, timeout=POLL_S)
                    break
                except queue.Full:
                    if os.getppid() != parent:
                        return
    except Exception:
        batches.put(("error", traceback.format_exc(), None))


class _Array:
    """A tensor travelling between processes as its numpy array; an integer one in the
    narrowest integer type that holds its values (most ids and coordinates fit 8 or 16 bits,
    so a batch pickles to a third of its size), widened back to `dtype` on arrival."""

    __slots__ = ("array", "dtype")

    def __init__(self, tensor: torch.Tensor) -> None:
        array = tensor.numpy()
        self.dtype = array.dtype
        if array.dtype.kind == "i" and array.size:
            low, high = int(array.min()), int(array.max())
            narrow = next(t for t in (np.int8, np.int16, np.int32, np.int64)
                          if np.iinfo(t).min <= low and high <= np.iinfo(t).max)  # fmt: skip
            array = array.astype(narrow, copy=False)
        self.array = array

    def tensor(self) -> torch.Tensor:
        return torch.from_numpy(self.array.astype(self.dtype, copy=False))


def _arrays(value: Any) -> Any:
    """`value` with every tensor (through a Batch but its `meta`, dicts, lists, tuples) as an
    `_Array`."""
    return _map(value, torch.Tensor, _Array)


def _tensors(value: Any) -> Any:
    """The inverse of `_arrays`."""
    return _map(value, _Array, _Array.tensor)


def _map(value: Any, leaf: type, convert) -> Any:
    """`value` with `convert` applied to every `leaf` in it, through a Batch (but its `meta`),
    dicts, lists and tuples."""
    if isinstance(value, leaf):
        return convert(value)
    if isinstance(value, Batch):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return Batch(**{k: v if k == "meta" else _map(v, leaf, convert) for k, v in fields.items()})
    if isinstance(value, dict):
        return {k: _map(v, leaf, convert) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_map(v, leaf, convert) for v in value)
    return value
