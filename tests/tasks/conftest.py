"""Fixtures for the task tests: one thread, the MiniLM tokenizer, the literal expense table."""

from __future__ import annotations

import pytest
import torch

from fortap.text.tokenizer import load_tokenizer


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def tokenizer():
    return load_tokenizer()
