"""Shared test fixtures: where the real data lives (../shared/data, read-only, never copied),
one MiniLM tokenizer per worker, and one intra-op thread per test process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
# bench scripts are tested as `bench.<script>`, and their helpers import as `helpers.<module>`,
# as they do when a bench runs as a script (bench/ first on the path), and under no second
# dotted name, which would load a second copy (`tests/bench/test_helper_imports.py`)
for folder in (REPO, REPO / "bench"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"real data not found at {DATA}: CI runs with ../shared beside the clone")
    return DATA


@pytest.fixture(scope="session")
def tokenizer():
    """The WordPiece tokenizer over the installed MiniLM vocabulary (built once per worker)."""
    from fortap.text.tokenizer import Tokenizer

    return Tokenizer()


@pytest.fixture(autouse=True)
def one_thread():
    """One intra-op thread in every test: the tiny models gain nothing from two, pytest-xdist
    already runs one process per core, and two threads on a busy machine make every op wait for
    the slower one. Set again before each test, since a run's `--threads` is process-wide and
    would otherwise change the float sums of the tests after it."""
    import torch

    torch.set_num_threads(1)
    yield


@pytest.fixture(autouse=True)
def subnormals_back():
    """Training and model loading turn on flush-to-zero (`torch.set_flush_denormal`, the CPU
    stack's rule), which is process-wide: afterwards hypothesis (and schemathesis through it)
    refuses to draw floats. Each test starts with it off (a bench module imported at collection
    turns it on too), and library code turns it on when it runs."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_flush_denormal(False)
    yield
