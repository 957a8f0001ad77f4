"""BatchLoader: worker processes that shard a rank's stream, deterministic for (seed, rank,
worker), and a stopped stream that resumes where it stopped."""

from __future__ import annotations

import json
import random

import pytest
import torch

from fortap.errors import FortapError
from fortap.training.loader import BatchLoader, batch_source
from fortap.training.stream import ExampleStream

ITEMS = list(range(12))


def make(item, rng: random.Random):
    return (item, rng.random())


def loader(workers=2, seed=3, rank=0, world=1, prefetch=2, items=ITEMS):
    return batch_source(items, make, list, 2, seed, rank, world, workers, prefetch)


def test_workers_split_each_epoch_of_the_rank():
    streams = [ExampleStream(ITEMS, make, list, 2, 3, worker=w, workers=3) for w in range(3)]
    seen = [[s.next_example()[0] for _ in range(4)] for s in streams]
    assert sorted(x for part in seen for x in part) == ITEMS  # one epoch, no item twice
    ranked = [ExampleStream(ITEMS, make, list, 2, 3, 1, 2, w, 2) for w in range(2)]
    mine = sorted(x for s in ranked for x in (s.next_example()[0] for _ in range(3)))
    order = list(range(12))
    random.Random("3/0").shuffle(order)
    assert mine == sorted(order[1::2])  # the rank's shard of the epoch


def test_one_worker_is_the_rank_stream_itself():
    plain = ExampleStream(ITEMS, make, list, 2, 3)
    with_one = loader(workers=1)
    try:
        assert [with_one.next_batch() for _ in range(8)] == [plain.next_batch() for _ in range(8)]
    finally:
        with_one.close()


def test_batches_are_fixed_by_seed_rank_and_worker_count():
    a, b, c = loader(), loader(), loader(seed=4)
    try:
        first = [a.next_batch() for _ in range(10)]
        assert first == [b.next_batch() for _ in range(10)]
        assert first != [c.next_batch() for _ in range(10)]
        assert [x for batch in first[:6] for x, _ in batch[:1]]  # batches of items
    finally:
        for x in (a, b, c):
            x.close()


def test_a_stopped_stream_goes_on_where_it_stopped():
    straight = loader(prefetch=3)
    stopped = loader(prefetch=3)
    try:
        expected = [straight.next_batch() for _ in range(12)]
        assert [stopped.next_batch() for _ in range(5)] == expected[:5]  # workers ran ahead
        state = json.loads(json.dumps(stopped.state_dict()))
        stopped.close()
        resumed = loader(prefetch=1)
        resumed.load_state_dict(state)
        assert [resumed.next_batch() for _ in range(7)] == expected[5:]
        resumed.close()
    finally:
        straight.close()


def test_an_in_process_checkpoint_resumes_one_worker():
    plain = ExampleStream(ITEMS, make, list, 2, 3)
    for _ in range(3):
        plain.next_batch()
    one = loader(workers=1)
    one.load_state_dict(json.loads(json.dumps(plain.state_dict())))
    try:
        assert [one.next_batch() for _ in range(4)] == [plain.next_batch() for _ in range(4)]
        with pytest.raises(FortapError, match="data.workers=1"):
            loader(workers=2).load_state_dict(one.state_dict())
    finally:
        one.close()


def test_a_failing_worker_raises_its_error_here():
    def broken(item, rng):
        raise RuntimeError(f"cannot build {item}")

    bad = BatchLoader([ExampleStream(ITEMS, broken, list, 2, 0)])
    with pytest.raises(FortapError, match="cannot build"):
        bad.next_batch()


def test_batches_of_tensors_come_back_as_tensors():
    from fortap.encoding.example import Batch

    def collate(examples):
        t = torch.tensor([[x for x, _ in examples]])
        return Batch(*[t] * 12, targets={"mlm": {"labels": t[0]}}, meta=[{"a": [1]}])

    workers = batch_source(ITEMS, make, collate, 2, 0, workers=2)
    try:
        batch = workers.next_batch()
        assert isinstance(batch.token_ids, torch.Tensor) and batch.token_ids.shape == (1, 2)
        assert isinstance(batch.targets["mlm"]["labels"], torch.Tensor)
        assert batch.meta == [{"a": [1]}]
    finally:
        workers.close()
