"""`bench/fp_runs.py` on two tiny finished runs (without and with augmentation): the table
holds each run's own test metrics and baselines, the gap is the difference of the two runs'
top-1 over the same targets, and the augmentation shares come from the run folder."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bench import fp_runs
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPAugment, FPData, FPTraining
from fortap.tasks.formula_prediction.run import run_finetune
from tests.tasks.test_finetune_resume import tables_file


def test_two_runs_give_their_metrics_and_a_paired_gap(tmp_path):
    tables = tables_file(tmp_path)
    cfg = FormulaRunConfig(training=FPTraining(steps=4, batch_size=2, dev_checks=2,
                                               progress=False))  # fmt: skip
    augmented = dataclasses.replace(cfg, data=FPData(augment=FPAugment(transpose=1.0)))
    for name, run_cfg in (("plain", cfg), ("aug", augmented)):
        assert run_finetune([tables], tmp_path / name, run_cfg) is not None
    out = tmp_path / "runs.json"
    fp_runs.main([str(tmp_path / "plain"), str(tmp_path / "aug"), "--json", str(out)])
    plain, aug = json.loads(out.read_text())["results"]
    for row, name in ((plain, "plain"), (aug, "aug")):
        systems = json.loads((tmp_path / name / "metrics.json").read_text())["systems"]
        assert row["formula_top1_pooled"] == systems["model"]["formula_top1"]
        assert row["AutoSum_formula_top1_pooled"] == systems["rules (paper)"]["formula_top1"]
        assert row["sketch prior_sketch_top1_pooled"] == systems["sketch prior"]["sketch_top1"]
    assert plain["gaps"]["formula_top1_pooled"]["gap"] == 0.0
    assert aug["gaps"]["sketch_top1_pooled"]["gap"] == pytest.approx(
        aug["sketch_top1_pooled"] - plain["sketch_top1_pooled"]
    )
    assert aug["augmented_share"]["transpose"] > 0.5 and plain["augmented_share"] == {}
    assert aug["augment"]["transpose"] == 1.0
