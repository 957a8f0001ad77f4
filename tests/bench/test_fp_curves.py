"""`bench/fp_curves.py` on two tiny fine-tuning runs: the curves are the runs' own dev lines,
the baselines are the runs' dev baselines, a repeated step counts once."""

from __future__ import annotations

import dataclasses
import json

from bench import fp_curves
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPTraining
from fortap.tasks.formula_prediction.examples import FormulaExamplesConfig, parse_tables
from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction
from fortap.tasks.formula_prediction.split import split_for_run
from tests.tasks.expense_table import expense_table, tiny_encoder

BOOKS = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx")


def test_two_runs_give_two_curves_a_table_and_targets(tmp_path, tokenizer):
    tables = [dataclasses.replace(expense_table(), book=name) for name in BOOKS]
    formulas = parse_tables(tables)
    split, _ = split_for_run(tables, tokenizer, FormulaExamplesConfig(), 0, None, formulas)
    for name, steps in (("short", 4), ("long", 6)):
        training = FPTraining(steps=steps, batch_size=2, dev_checks=2, progress=False)
        cfg = FormulaRunConfig(training=training)
        finetune_formula_prediction(split["train"], split["dev"], tiny_encoder(), cfg,
                                    tmp_path / name / "training", tables=tables,
                                    formulas=formulas)  # fmt: skip
    # a resumed run logs a check again: the last line of a step counts
    log = tmp_path / "long" / "training" / "metrics.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    again = dict(next(e for e in lines if e.get("step") == 6 and "eval/formula_top1" in e))
    again["eval/formula_top1"] = 0.75
    log.write_text(log.read_text() + json.dumps(again) + "\n")

    png, out = tmp_path / "curves.png", tmp_path / "curves.json"
    fp_curves.main([str(tmp_path / "short"), str(tmp_path / "long" / "training"),
                    "--labels", "4 updates,6 updates", "--out", str(png), "--json", str(out)])  # fmt: skip
    assert png.read_bytes()[:4] == b"\x89PNG"
    got = json.loads(out.read_text())
    short, long = got["results"]
    assert (short["run"], short["checks"], short["examples_seen"]) == ("4 updates", 2, 8)
    assert [c["examples"] for c in got["curves"]["6 updates"]] == [6, 12]
    assert long["best_formula_top1"] == long["final_formula_top1"] == 0.75
    assert long["best_formula_top1_examples"] == 12
    base = json.loads((tmp_path / "short" / "training" / "dev_baselines.json").read_text())
    paper = base["systems"]["rules (paper)"]["formula_top1"]
    assert short["autosum_formula_top1"] == paper == 3 / 5  # the three SUM totals of 5 targets
    assert short["sketch_prior_sketch_top1"] == base["systems"]["sketch prior"]["sketch_top1"]
    names = [t["name"] for t in got["targets"]]
    assert "best formula top-1 > AutoSum (6 updates)" in names
    assert "best sketch top-1 > sketch prior (4 updates)" in names
    for t in got["targets"]:
        assert t["met"] == (t["value"] > t["target"])
    assert long["ratio_best_vs_autosum"] == 0.75 / paper
