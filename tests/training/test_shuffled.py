"""`ShuffledBatches`: epochs of rng-drawn order, disjoint rank shares, a resumable state."""

from __future__ import annotations

import random

from fortap.training.shuffled import ShuffledBatches


def take(source: ShuffledBatches, n: int) -> list[list[int]]:
    return [source.next_batch() for _ in range(n)]


def test_one_process_draws_whole_epochs_as_rng_sample():
    source = ShuffledBatches(list(range(5)), list, 3, random.Random(7))
    rng = random.Random(7)
    order = rng.sample(range(5), 5)
    order += rng.sample(range(5), 5)  # appended when fewer than a batch remain
    assert take(source, 3) == [order[0:3], order[3:6], order[6:9]]


def test_ranks_share_an_update_disjointly():
    ranks = [ShuffledBatches(list(range(12)), list, 2, random.Random(0), r, 2) for r in (0, 1)]
    one = ShuffledBatches(list(range(12)), list, 4, random.Random(0))
    for _ in range(6):  # two epochs
        a, b, both = ranks[0].next_batch(), ranks[1].next_batch(), one.next_batch()
        assert len(a) == len(b) == 2 and not set(a) & set(b)
        assert sorted(a + b) == sorted(both)  # together: the one-process update


def test_a_restored_state_continues_the_same_batches():
    first = ShuffledBatches(list(range(7)), list, 3, random.Random(1))
    take(first, 2)
    state = first.state_dict()
    second = ShuffledBatches(list(range(7)), list, 3, random.Random(99))
    second.load_state_dict(state)
    assert take(first, 4) == take(second, 4)


def test_a_set_smaller_than_a_batch_gives_short_batches():
    source = ShuffledBatches(list(range(2)), list, 3, random.Random(0))
    assert [len(b) for b in take(source, 3)] == [2, 2, 2]  # one epoch appended per update


def test_draw_gets_each_example_with_the_serial_number_of_its_draw():
    source = ShuffledBatches(list(range(5)), list, 3, random.Random(7), draw=lambda i, s: (i, s))
    plain = ShuffledBatches(list(range(5)), list, 3, random.Random(7))
    batches = take(source, 4)
    assert [[i for i, _ in b] for b in batches] == take(plain, 4)  # the same order
    assert [s for b in batches for _, s in b] == list(range(12))
    state = source.state_dict()
    assert state["drawn"] == 12
    again = ShuffledBatches(list(range(5)), list, 3, random.Random(0), draw=lambda i, s: (i, s))
    again.load_state_dict(state)
    assert take(again, 3) == take(source, 3)  # a resumed source draws the same serials


def test_ranks_draw_disjoint_serials():
    def ranks(world: int) -> list[ShuffledBatches]:
        return [ShuffledBatches(list(range(6)), list, 2, random.Random(0), r, world,
                                draw=lambda i, s: s) for r in range(world)]  # fmt: skip

    two = ranks(2)
    serials = [s for _ in range(3) for source in two for s in source.next_batch()]
    assert sorted(serials) == list(range(12))
