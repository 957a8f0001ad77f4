"""`bench/fp_runs.py` on two tiny finished runs (without and with augmentation): the table
holds each run's own test metrics and baselines, the gap is the difference of the two runs'
top-1 over the same targets, and the augmentation shares come from the run folder."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bench import fp_runs
from fortap.corpus.split import book_key
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPAugment, FPData, FPTraining
from fortap.tasks.formula_prediction.decoder import DecoderConfig
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


def test_a_sheet_run_is_read_against_fill_and_common_restricts_runs(tmp_path):
    tables = tables_file(tmp_path)
    corpus = tmp_path / "corpus"  # a corpus split: two test workbooks, c and d
    corpus.mkdir()
    sides = {
        book_key(f"{k}.xlsx"): side
        for k, side in zip("abcd", ("train", "dev", "test", "test"), strict=True)
    }
    (corpus / "split.json").write_text(json.dumps({"splits": sides}))
    train = FPTraining(steps=4, batch_size=2, dev_checks=2, progress=False)
    paper = FormulaRunConfig(training=train, data=FPData(corpus=str(corpus)))
    sheet = FormulaRunConfig(training=train, data=FPData(corpus=str(corpus), setting="sheet"),
                             decoder=DecoderConfig(layers=1, heads=2, dropout=0.0, copy=True))  # fmt: skip
    fewer = tmp_path / "fewer.jsonl"  # the same tables without their last workbook
    lines = tables.read_text().splitlines()
    fewer.write_text("\n".join(line for line in lines if "d.xlsx" not in line) + "\n")
    assert run_finetune([tables], tmp_path / "paper", paper) is not None
    assert run_finetune([tables], tmp_path / "sheet", sheet) is not None
    assert run_finetune([fewer], tmp_path / "fewer", paper) is not None
    out = tmp_path / "runs.json"
    fp_runs.main([str(tmp_path / "paper"), str(tmp_path / "sheet"), "--json", str(out)])
    result = json.loads(out.read_text())
    row = result["results"][1]
    assert row["setting"] == "sheet"
    goals = [g for g in result["targets"] if "fill" in g["name"]]
    assert [g["value"] for g in goals] == [
        row["formula_top1_pooled"],
        row["formula_top1_per_workbook"],
    ]
    assert all("low" in g and g["met"] == (g["value"] >= g["target"]) for g in goals)
    with pytest.raises(SystemExit, match="different targets"):
        fp_runs.main([str(tmp_path / "paper"), str(tmp_path / "fewer")])
    fp_runs.main([str(tmp_path / "paper"), str(tmp_path / "fewer"), "--common", "--json", str(out)])
    full, few = json.loads(out.read_text())["results"]
    assert full["n"] == few["n"] < row["n"]  # the paper run is cut to the shared targets
    systems = json.loads((tmp_path / "fewer" / "metrics.json").read_text())["systems"]
    assert full["AutoSum_formula_top1_pooled"] == systems["rules (paper)"]["formula_top1"]
    assert few["formula_top1_pooled"] == systems["model"]["formula_top1"]
