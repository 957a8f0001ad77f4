"""Fixtures for the objectives: the MiniLM vocabulary and the revenue table serialised."""

from __future__ import annotations

import pytest

from fortap.encoding.serialize import SerializeConfig, serialize
from fortap.objectives.vocab import Vocab

from .objective_kit import revenue_table


@pytest.fixture(scope="session")
def vocab(tokenizer) -> Vocab:
    return Vocab.from_tokenizer(tokenizer)


@pytest.fixture
def example(tokenizer):
    """The revenue table serialised with its context after [CLS]."""
    return serialize(revenue_table(), tokenizer, SerializeConfig(), context="revenue by region")
