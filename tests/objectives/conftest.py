"""Fixtures for the objectives: one thread, the MiniLM tokenizer, the revenue table serialised."""

from __future__ import annotations

import pytest
import torch
from objective_kit import revenue_table

from fortap.encoding.serialize import SerializeConfig, serialize
from fortap.objectives.vocab import Vocab
from fortap.text.tokenizer import load_tokenizer


@pytest.fixture(autouse=True)
def one_thread():
    """One intra-op thread: the tiny models gain nothing from two, and lose a lot on a busy
    machine (every op waits for the slower thread)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tokenizer():
    return load_tokenizer()


@pytest.fixture(scope="session")
def vocab(tokenizer) -> Vocab:
    return Vocab.from_tokenizer(tokenizer)


@pytest.fixture
def example(tokenizer):
    """The revenue table serialised with its context after [CLS]."""
    return serialize(revenue_table(), tokenizer, SerializeConfig(), context="revenue by region")
