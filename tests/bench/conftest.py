"""Fixtures of the bench tests, shared with the objectives' and the training loop's tests: the
MiniLM vocabulary and the tiny real corpus. (`tests/conftest.py` puts `bench/` on the path, as
it is when a bench runs as a script, so the benches' `helpers` package imports.)"""

from __future__ import annotations

from tests.objectives.conftest import vocab  # noqa: F401  (fixture)
from tests.training.conftest import tiny_corpus  # noqa: F401  (fixture)
