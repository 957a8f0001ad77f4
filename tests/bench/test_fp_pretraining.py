"""`bench/fp_pretraining.py` on tiny finished runs: each run is grouped by what its own config
says (start encoder, training share, setting), its metrics come from its `metrics.json`, and a
pretrained start is compared with the random start of its group on the same targets."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bench import fp_pretraining
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPData, FPEncoder, FPTraining
from fortap.tasks.formula_prediction.run import run_finetune
from tests.tasks.expense_table import tiny_encoder
from tests.tasks.test_finetune_resume import tables_file


def test_runs_are_grouped_by_their_config_and_compared_with_no_pretraining(tmp_path):
    tables = tables_file(tmp_path)
    encoder = tmp_path / "pretrained"  # a pretraining run's encoder/ folder
    tiny_encoder(seed=3).save_pretrained(encoder)
    cfg = FormulaRunConfig(training=FPTraining(steps=4, batch_size=2, dev_checks=2,
                                               progress=False))  # fmt: skip
    runs = {
        "random": cfg,
        "tuta": dataclasses.replace(cfg, encoder=FPEncoder(name="tuta", checkpoint=str(encoder))),
        "random-20": dataclasses.replace(cfg, data=FPData(train="low_resource")),
    }
    for name, run_cfg in runs.items():
        assert run_finetune([tables], tmp_path / name, run_cfg) is not None
    out = tmp_path / "cmp.json"
    fp_pretraining.main([*(str(tmp_path / n) for n in runs), "--json", str(out)])
    result = json.loads(out.read_text())
    rows = {r["run"]: r for r in result["results"] if r["kind"] == "run"}
    assert [(r["encoder"], r["train"]) for r in rows.values()] == [
        ("random", "full"), ("tuta", "full"), ("random", "low_resource")]  # fmt: skip
    for name, r in rows.items():
        model = json.loads((tmp_path / name / "metrics.json").read_text())["systems"]["model"]
        assert r["formula_top1"]["pooled"] == model["formula_top1"]
        assert r["range_top5"]["pooled"] == model["by_workbook"]["range_top5"]["pooled"]
    (gap,) = [g for g in result["results"] if g["kind"] == "gap"]  # tuta - random, full only
    assert (gap["run"], gap["minus"]) == ("tuta", "random")
    g = gap["gaps"]["sketch_top1_pooled"]["gap"]
    assert g == pytest.approx(
        rows["tuta"]["sketch_top1"]["pooled"] - rows["random"]["sketch_top1"]["pooled"]
    )
    (goal,) = result["targets"]
    assert goal["met"] == (goal["low"] > 0) and goal["target"] == 0.0
    bases = {(b["train"], b["system"]) for b in result["results"] if b["kind"] == "baseline"}
    assert ("full", "rules (paper)") in bases and ("low_resource", "sketch prior") in bases
