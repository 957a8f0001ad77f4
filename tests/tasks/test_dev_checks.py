"""Dev checks of formula-prediction fine-tuning on real EUSES workbooks: each check decodes the
dev examples and logs their metrics with the training examples seen, the dev baselines are
written once, and the kept state can be the best dev formula top-1."""

from __future__ import annotations

import json

import pytest

from fortap.config import ConfigError
from fortap.corpus.split import SplitConfig, book_key
from fortap.encoding.serialize import SerializeConfig
from fortap.table import detect_tables
from fortap.tasks.formula_prediction.config import (
    FormulaRunConfig,
    FPEvaluation,
    FPTraining,
)
from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.dev_checks import DEV_BASELINES, dev_subset, dev_summary
from fortap.tasks.formula_prediction.evaluate import evaluate_sketch_prior, predict
from fortap.tasks.formula_prediction.examples import FormulaExamplesConfig, split_examples
from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction
from fortap.tasks.formula_prediction.rule_baseline import evaluate_rules
from fortap.tasks.formula_prediction.workbooks import books_of
from fortap.tasks.recipe import Optim
from fortap.tasks.run_config import load_run_config

from .expense_table import tiny_encoder

TRAIN = ["io_a3.wb1.reichwja.xl97.xlsx", "act3_lab23_posey.xlsx", "table_01_27.xlsx"]
DEV = "financial_outlook_sta#A7DE4.xlsx"
CFG = FormulaRunConfig(
    training=FPTraining(steps=6, batch_size=4, grad_accum=2, dev_checks=2, log_every=3,
                        keep_best="formula_top1", progress=False),
    evaluation=FPEvaluation(max_dev=12, dev_beam=2),
    optim=Optim(lr=3e-3, encoder_lr=3e-3, warmup=0.0),
    decoder=DecoderConfig(layers=1, heads=2, dropout=0.0),
)  # fmt: skip


@pytest.fixture(scope="module")
def tables(data_dir):
    from fortap.sheet import read_workbook

    folder = data_dir / "euses_excelint" / "subjects_xlsx"
    out = []
    for name in [*TRAIN, DEV]:
        out += [t for sheet in read_workbook(folder / name).sheets for t in detect_tables(sheet)]
    return out


def test_dev_checks_decode_the_dev_examples_and_write_the_baselines(tables, tokenizer, tmp_path):
    sides = {book_key(t.book): "dev" if t.book.endswith(DEV) else "train" for t in tables}
    ex_cfg = FormulaExamplesConfig(serialize=SerializeConfig(max_seq_len=128, formula_mode="value"))
    split = split_examples(tables, tokenizer, ex_cfg, SplitConfig(overrides=sides))
    train, dev = split["train"], dev_subset(split["dev"], CFG)
    assert len(split["dev"]) > 12 and len(dev) == 12
    assert dev[0] is split["dev"][0] and dev[-1] is not split["dev"][11]  # spread, not the first

    model, _ = finetune_formula_prediction(
        train, split["dev"], tiny_encoder(), CFG, tmp_path, tables=tables
    )
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    checks = [e for e in lines if "eval/formula_top1" in e]
    assert [e["step"] for e in checks] == [3, 6]
    assert [e["examples"] for e in checks] == [3 * 4 * 2, 6 * 4 * 2]  # updates x batch x accum
    assert [e["examples"] for e in lines if "loss" in e] == [24, 48]  # train lines too
    for e in checks:
        assert e["eval/decoded"] == 12 and e["eval/decode_seconds"] > 0
        assert 0 <= e["eval/formula_top1"] <= e["eval/formula_top5"] <= 1
        assert 0 <= e["eval/sketch_top1"] <= e["eval/sketch_top5"] <= 1
        assert e["eval/formula_top1_per_workbook"] == e["eval/formula_top1"]  # one dev workbook
        assert "eval/loss/formula" in e  # the dev loss is still measured at the same check

    # the kept state is the first check with the highest dev formula top-1, and decoding it
    # again gives exactly the logged values
    trainer = json.loads(next((tmp_path / "checkpoints").glob("step-*6/trainer.json")).read_text())
    best = max(checks, key=lambda e: e["eval/formula_top1"])
    assert trainer["best"] == {"metric": "eval/formula_top1", "mode": "max",
                               "value": best["eval/formula_top1"], "step": best["step"]}  # fmt: skip
    decode = CFG.dev_decoding()
    assert (decode.beam, decode.top_k) == (2, 5)
    golds, guesses, _ = predict(model, dev, 16, decode)
    again = dev_summary(books_of(dev), golds, guesses, 5)
    assert {f"eval/{k}": v for k, v in again.items()}.items() <= best.items()

    baselines = json.loads((tmp_path / DEV_BASELINES).read_text())
    assert (baselines["n"], baselines["books"], baselines["top_k"]) == (12, 1, 5)
    systems = baselines["systems"]
    assert list(systems) == ["sketch prior", "rules (paper)", "rules (sheet)"]
    prior = evaluate_sketch_prior(train, dev)
    paper = evaluate_rules(tables, dev, "paper")[0]
    sheet = evaluate_rules(tables, dev, "sheet")[0]
    for name, want in (("sketch prior", prior), ("rules (paper)", paper), ("rules (sheet)", sheet)):
        for key in ("formula_top1", "formula_top5", "sketch_top1", "sketch_top5", "range_acc"):
            assert systems[name][key] == want[key], (name, key)
    assert systems["rules (sheet)"]["formula_top1"] > 0.3  # fill copies the dragged neighbour


def test_keeping_the_best_top1_needs_dev_decoding():
    with pytest.raises(ConfigError, match="keep_best formula_top1 needs dev checks"):
        load_run_config(FormulaRunConfig, None, ["training.keep_best=formula_top1",
                                                 "evaluation.dev_decode=false"])  # fmt: skip
    with pytest.raises(ConfigError, match="FPTraining.keep_best must be one of"):
        load_run_config(FormulaRunConfig, None, ["training.keep_best=range"])
    loop = load_run_config(FormulaRunConfig, None, ["training.keep_best=formula_top1"])
    assert (loop.training.loop().keep_best, loop.training.loop().keep_best_mode) == (
        "eval/formula_top1", "max")  # fmt: skip
