"""Fixtures: one tokenizer over the installed MiniLM vocabulary and the formula vocabulary."""

from __future__ import annotations

import pytest

from fortap.text.tokenizer import Tokenizer


@pytest.fixture(scope="session")
def tokenizer() -> Tokenizer:
    return Tokenizer()
