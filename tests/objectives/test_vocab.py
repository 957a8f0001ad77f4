"""The tokenizer's ids as the objectives see them."""

from __future__ import annotations

import random

import pytest

from fortap.objectives.vocab import Vocab


def test_ids_of_the_minilm_tokenizer(vocab, tokenizer):
    assert (vocab.size, vocab.pad, vocab.cls, vocab.sep, vocab.mask, vocab.emp) == (
        30522,
        0,
        101,
        102,
        103,
        2,
    )
    assert {1, 100, 104, 110, 150} <= vocab.no_target  # [VAL] [UNK] [FORMULA] formula tokens
    assert vocab.encode_text("north 12") == tokenizer.encode_cell("north 12")


def test_random_ids_are_ordinary_words(vocab):
    rng = random.Random(0)
    draws = [vocab.random_id(rng) for _ in range(1000)]
    assert all(1996 <= d < 29612 and d not in vocab.no_target for d in draws)


def test_random_ids_fit_a_small_vocabulary():
    small = Vocab(size=50, pad=0, cls=1, sep=2, mask=3, emp=4, encode_text=lambda t: [])
    rng = random.Random(0)
    assert all(5 <= small.random_id(rng) < 50 for _ in range(100))
    with pytest.raises(ValueError, match="Vocab.random_ids"):
        Vocab(size=5, pad=0, cls=1, sep=2, mask=3, emp=4, encode_text=None, random_ids=(3, 3))
