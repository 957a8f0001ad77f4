"""The CLI fuzz bench's fast subset (`bench/cli_fuzz.py --fast`): hostile inputs and bad options
get a one-line error and a non-zero exit, never a traceback, a hang or a gigabyte."""

from __future__ import annotations

import time
from pathlib import Path

from bench import cli_fuzz


def test_the_fast_subset_of_hostile_inputs_is_refused_cleanly(tmp_path):
    start = time.perf_counter()
    results, targets = cli_fuzz.run_all(fast=True, timeout=60.0, max_mb=1024.0, folder=tmp_path)
    failed = [r for r in results if not r.passed]
    assert failed == [], failed
    assert all(t["met"] for t in targets), targets
    assert time.perf_counter() - start < 60 * 1.5, "the CI subset should take about a minute"


def test_each_cap_book_holds_exactly_its_commands_cap(tmp_path, monkeypatch):
    from fortap.sheet.sheet_part import content_cells

    monkeypatch.setattr(cli_fuzz, "caps", lambda: {"audit": 200, "suggest": 400, "cell-types": 100})
    found = cli_fuzz.cap_cases(tmp_path)
    assert [(c.args[0], c.cells, c.expect) for c in found] == [
        ("audit", 200, 0), ("suggest", 400, 0), ("cell-types", 100, 0)]
    for case in found:  # at the cap, not past it: the command must read it, in bounded memory
        assert sum(content_cells(Path(case.args[1])).values()) == case.cells
    result = cli_fuzz.Result("dense at cap audit", 0, 0, 9.0, 50.0, False, 0, True, 200)
    per_100k = cli_fuzz.targets([result], fast=True, max_mb=1024.0)[0]
    assert (per_100k["value"], per_100k["target"]) == (25000.0, 768000.0)
