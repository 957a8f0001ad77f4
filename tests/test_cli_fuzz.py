"""The CLI fuzz bench's fast subset (`bench/cli_fuzz.py --fast`): hostile inputs and bad options
get a one-line error and a non-zero exit, never a traceback, a hang or a gigabyte."""

from __future__ import annotations

import time

from bench import cli_fuzz


def test_the_fast_subset_of_hostile_inputs_is_refused_cleanly(tmp_path):
    start = time.perf_counter()
    results, targets = cli_fuzz.run_all(fast=True, timeout=60.0, max_mb=1024.0, folder=tmp_path)
    failed = [r for r in results if not r.passed]
    assert failed == [], failed
    assert all(t["met"] for t in targets), targets
    assert time.perf_counter() - start < 60 * 1.5, "the CI subset should take about a minute"
