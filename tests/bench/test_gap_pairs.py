"""Which paired gaps the cell-type and table-QA benches report for a set of runs."""

from __future__ import annotations

import cell_types
from helpers.recipe_pairs import recipe_pairs


def test_cell_types_pairs_each_recipe_with_its_own_start():
    names = ["fortap-tiny", "tuta-tiny", "random", "minilm", "fortap-gpu3m", "tuta-gpu3m",
             "minilm-gpu3m"]  # fmt: skip
    pairs = set(cell_types.pairs(names))
    assert ("fortap-gpu3m", "tuta-gpu3m") in pairs
    assert ("fortap-gpu3m", "minilm-gpu3m") in pairs and ("tuta-gpu3m", "minilm-gpu3m") in pairs
    assert ("fortap-tiny", "random") in pairs and ("fortap-tiny", "tuta-tiny") in pairs
    assert ("fortap-gpu3m", "random") not in pairs
    assert all((n, cell_types.FOREST) in pairs for n in names)


def test_recipe_pairs_only_runs_that_exist():
    pairs = recipe_pairs(["fortap-gpu3m", "tuta-gpu3m", "minilm-gpu3m", "fortap-x"])
    assert pairs == [("fortap-gpu3m", "tuta-gpu3m"), ("fortap-gpu3m", "minilm-gpu3m"),
                     ("tuta-gpu3m", "minilm-gpu3m")]  # fmt: skip
