"""Formula prediction end to end on a few real EUSES workbooks, with a tiny encoder.

Read with `fortap.sheet.read_workbook`, tables from `detect_tables`, examples split by workbook;
a tiny model trains for a few dozen updates and is evaluated with beam search beside the rule
baseline in both settings, all on the same test targets.
"""

from __future__ import annotations

import pytest

from fortap.corpus.split import SplitConfig, book_key
from fortap.encoding.serialize import SerializeConfig
from fortap.table import detect_tables
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPTraining
from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.evaluate import evaluate_formula_prediction
from fortap.tasks.formula_prediction.examples import (
    FormulaExamplesConfig,
    fp_batch,
    split_examples,
)
from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction
from fortap.tasks.formula_prediction.rule_baseline import evaluate_rules
from fortap.tasks.recipe import Optim
from fortap.training.logs import evaluate

from .expense_table import tiny_encoder

TRAIN = ["io_a3.wb1.reichwja.xl97.xlsx", "act3_lab23_posey.xlsx", "table_01_27.xlsx"]
TEST = ["financial_outlook_sta#A7DE4.xlsx"]


@pytest.fixture(scope="module")
def tables(data_dir):
    from fortap.sheet import read_workbook

    folder = data_dir / "euses_excelint" / "subjects_xlsx"
    out = []
    for name in TRAIN + TEST:
        out += [t for sheet in read_workbook(folder / name).sheets for t in detect_tables(sheet)]
    return out


def dev_loss(model, batches) -> float:
    """Mean sketch + range loss (weight 1) over `batches`."""
    return evaluate(model, batches)["eval/loss/formula"]


def test_fine_tune_and_evaluate_on_real_books(tables, tokenizer, tmp_path):
    overrides = {book_key(t.book): "test" if t.book.endswith(TEST[0]) else "train" for t in tables}
    cfg = FormulaExamplesConfig(serialize=SerializeConfig(max_seq_len=128, formula_mode="value"))
    split = split_examples(tables, tokenizer, cfg, SplitConfig(overrides=overrides))
    train, test = split["train"], split["test"]
    assert len(train) >= 60 and len(test) >= 20
    assert {ex.meta["book"] for ex in test}.isdisjoint({ex.meta["book"] for ex in train})
    assert all(len(ex) <= 128 for ex in train + test)

    finetune = FormulaRunConfig(
        training=FPTraining(steps=40, sketch_warmup=0.25, batch_size=8, dev_checks=0,
                            progress=False),
        optim=Optim(lr=3e-3, encoder_lr=3e-3, warmup=0.0, weight_decay=0.0),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0),
    )  # fmt: skip
    encoder = tiny_encoder()
    probe = [fp_batch(train[:16])]
    model, _ = finetune_formula_prediction(train, test[:8], encoder, finetune, tmp_path / "a")
    one = FormulaRunConfig(training=FPTraining(steps=1, dev_checks=0, progress=False),
                           decoder=finetune.decoder)  # fmt: skip
    untrained, _ = finetune_formula_prediction(train, [], tiny_encoder(), one, tmp_path / "b")
    assert dev_loss(model, probe) < dev_loss(untrained, probe)

    metrics, records = evaluate_formula_prediction(model, test, beam=5)
    assert metrics["n"] == len(test) == len(records)
    for key in ("formula_top1", "formula_top5", "sketch_top1", "sketch_top5", "range_acc"):
        assert 0.0 <= metrics[key] <= 1.0
    assert metrics["formula_top1"] <= metrics["formula_top5"]
    assert sum(metrics["errors"].values()) == pytest.approx(1.0)
    assert all(r["candidates"] and r["candidates"][0]["formula"].startswith("=") for r in records)

    sheet, _, _ = evaluate_rules(tables, test, setting="sheet")
    paper, _, _ = evaluate_rules(tables, test, setting="paper")
    hidden, _, _ = evaluate_rules(tables, test, setting="sheet", hide_block=True)
    # copying the neighbour is strong when the other formulas are visible; hiding the dragged
    # block or every formula takes that away
    assert sheet["formula_top1"] >= max(hidden["formula_top1"], paper["formula_top1"])
    assert sheet["formula_top1"] > 0.3
    print(
        "model", round(metrics["formula_top1"], 3), "rules sheet", round(sheet["formula_top1"], 3),
        "hidden block", round(hidden["formula_top1"], 3), "paper", round(paper["formula_top1"], 3),
    )  # fmt: skip
