"""ExampleStream: a fresh order per epoch and a JSON state that resumes the same draws."""

from __future__ import annotations

import json
import random

from fortap.training.stream import ExampleStream


def make(item, rng: random.Random):
    return (item, rng.random())


def stream(seed=3) -> ExampleStream:
    return ExampleStream(list("abcde"), make, list, batch_size=2, seed=seed)


def test_each_epoch_visits_every_item_once():
    s = stream()
    drawn = [s.next_example()[0] for _ in range(10)]
    assert sorted(drawn[:5]) == list("abcde") and sorted(drawn[5:]) == list("abcde")
    assert s.epoch == 1 and s.position == 5


def test_state_round_trips_through_json():
    s = stream()
    s.next_batch()
    s.next_batch()
    state = json.loads(json.dumps(s.state_dict()))
    expected = [s.next_batch() for _ in range(4)]
    resumed = stream()
    resumed.load_state_dict(state)
    assert [resumed.next_batch() for _ in range(4)] == expected


def test_items_that_yield_nothing_are_skipped():
    s = ExampleStream([1, 2, 3], lambda item, rng: item if item != 2 else None, list, 4)
    assert sorted(s.next_batch()[:2]) == [1, 3]
