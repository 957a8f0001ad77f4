"""Fixtures for the corpus tests (the literal table lives in `formula_tables`)."""

from __future__ import annotations

import pytest

from fortap.text.tokenizer import load_tokenizer


@pytest.fixture(scope="session")
def tokenizer():
    return load_tokenizer()
