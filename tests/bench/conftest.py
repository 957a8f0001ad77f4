"""Fixtures of the bench tests, shared with the objectives' and the training loop's tests: the
MiniLM vocabulary and the tiny real corpus. `bench/` goes on the path, as it is when a bench
runs as a script, so the benches' `helpers` package imports."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from tests.objectives.conftest import vocab  # noqa: E402, F401  (fixture)
from tests.training.conftest import tiny_corpus  # noqa: E402, F401  (fixture)
