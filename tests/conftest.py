"""Shared test fixtures: where the real data lives (../shared/data, read-only, never copied)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"real data not found at {DATA}: CI runs with ../shared beside the clone")
    return DATA
