"""Fixtures for the training loop: one thread, and a tiny pretraining setup over HiTab tables."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(autouse=True)
def one_thread():
    """One intra-op thread: tiny models gain nothing from two and lose a lot on a busy machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def hitab_files(data_dir):
    files = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))
    assert len(files) > 100
    return files[:10]
