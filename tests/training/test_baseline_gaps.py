"""The per-workbook gaps of `bench/pretrain.py` (`training/baseline_gaps.py`) on the tiny
real corpus: per-workbook tallies of the baselines that add up to the whole-dev numbers."""

from __future__ import annotations

import pytest

from fortap.objectives.baselines import (
    formula_mlm_baseline,
    ncp_baseline,
    nrp_baseline,
    nrp_position_rule,
)
from fortap.training.baseline_gaps import baseline_tallies, gap_rows
from fortap.training.run_config import load_config
from tests.training.test_checkpoint import CORPUS


def test_baseline_tallies_add_up_to_the_whole_dev_baselines(tiny_corpus):
    from fortap.training.pretrain import setup_pretrain

    cfg = load_config("tiny", [*CORPUS, "data.eval_samples=0"])
    examples = setup_pretrain(cfg, tiny_corpus, "random").eval_examples
    values = {n: [e.targets.get(n) for e in examples] for n in ("nrp", "ncp", "formula_mlm")}
    cells = [len(e.cell_coords) for e in examples]
    base = {"nrp": nrp_baseline(values["nrp"]), "ncp": ncp_baseline(values["ncp"]),
            "formula_mlm": formula_mlm_baseline(values["formula_mlm"], cells)}  # fmt: skip
    got = baseline_tallies(examples, base)
    whole = {("nrp", "majority"): base["nrp"], ("ncp", "majority"): base["ncp"],
             ("formula_mlm", "majority"): base["formula_mlm"],
             ("nrp", "rule"): nrp_position_rule(examples)}  # fmt: skip
    for key, metrics in whole.items():
        hits, n = (sum(getattr(t, f) for t in got[key].values()) for f in ("hits", "n"))
        assert n == metrics["n"] > 0, key
        assert hits / n == pytest.approx(metrics["acc"]), key
    by_book = {b: {"acc/nrp": t.hits / t.n, "n/nrp": t.n} for b, t in got["nrp", "rule"].items()}
    rows = {r["gap_of"]: r for r in gap_rows(by_book, got, rounds=50)}
    rule = rows["NRP hand position rule - majority class"]["gap"]
    assert rows["NRP pair accuracy - majority class"]["gap"] == pytest.approx(rule)
