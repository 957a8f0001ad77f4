"""Formula-prediction examples, targets, loss, and a tiny model that overfits them."""

from __future__ import annotations

import dataclasses
import random

import pytest
import torch

from fortap.corpus.split import SplitConfig
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPTraining
from fortap.tasks.formula_prediction.decoder import PAD, DecoderConfig
from fortap.tasks.formula_prediction.evaluate import evaluate_formula_prediction, gold_of
from fortap.tasks.formula_prediction.examples import (
    FP_KEY,
    IGNORE,
    FormulaExamplesConfig,
    formula_examples,
    fp_batch,
    low_resource,
    split_examples,
    train_subset,
)
from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.tasks.recipe import Optim

from .expense_table import expense_table, tiny_encoder

START, END, PLUS, SUM, COLON, RANGE = 0, 1, 8, 20, 2, 3


def test_one_example_per_kept_formula_in_row_major_order(tokenizer):
    examples = formula_examples(expense_table(), tokenizer)
    assert [ex.meta["target"] for ex in examples] == [[1, 3], [2, 3], [3, 1], [3, 2], [3, 3]]
    assert [ex.meta["formula"] for ex in examples][:3] == ["=B2+C2", "=B3+C3", "=SUM(B2:B3)"]


def test_row_formula_example_has_the_papers_input_and_exact_targets(tokenizer):
    ex = formula_examples(expense_table(), tokenizer)[0]  # D2 = B2+C2
    # headers (row 0, column 0) + row 1 + column 3, row-major
    assert ex.cell_coords == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3),
                              (2, 0), (2, 3), (3, 0), (3, 3)]  # fmt: skip
    assert ex.targets[FP_KEY] == {
        "cell": 8,
        "sketch": [START, PLUS, RANGE, RANGE, END],
        "pointers": [0, 6, 7, 0],  # B2 is cell 6, C2 cell 7
        "gold_ranges": [[1, 1], [1, 2]],
        "origin": [0, 0],
        "reachable": True,
    }
    sep = ex.cell_ids.index(8)
    assert ex.token_ids[sep + 1] == tokenizer.formula_id  # [SEP] [FORMULA]
    assert ex.cell_ids.count(8) == 2
    assert ex.numbers[sep + 1] == (11, 11, 11, 11)  # default (not-a-number) features
    # other formula cells show their values (the paper setting): D3 holds 110
    d3 = ex.cell_ids.index(10)
    assert tokenizer.formula_id not in ex.token_ids[d3 : d3 + 3]


def test_column_sum_example_and_a_table_placed_lower_on_its_sheet(tokenizer):
    ex = formula_examples(expense_table(top=4, left=2), tokenizer)[2]  # D8 = SUM(D6:D7)
    assert ex.meta["target"] == [7, 3]
    assert ex.meta["formula"] == "=SUM(D6:D7)"
    t = ex.targets[FP_KEY]
    assert t["origin"] == [4, 2]
    assert t["sketch"] == [START, SUM, COLON, RANGE, RANGE, END]
    assert t["gold_ranges"] == [[5, 3], [6, 3]]  # sheet cells
    assert t["pointers"] == [0, 0, 6, 8, 0]


def test_a_reference_off_the_row_and_column_is_unreachable(tokenizer):
    examples = formula_examples(expense_table(corner="=D2+C2"), tokenizer)
    t = examples[-1].targets[FP_KEY]  # D4: D2 is on its column, C2 is not in the input
    assert t["pointers"][1] > 0 and t["pointers"][2] == -1
    assert t["reachable"] is False
    assert gold_of(examples[-1]).reachable is False


def test_collate_pads_sketches_and_ignores_non_range_steps(tokenizer):
    examples = formula_examples(expense_table(), tokenizer)
    batch = fp_batch([examples[0], examples[2]])
    t = batch.targets[FP_KEY]
    assert t["cell"].tolist() == [7, 9]
    assert t["sketch_in"].tolist() == [[START, PLUS, RANGE, RANGE, PAD],
                                        [START, SUM, COLON, RANGE, RANGE]]  # fmt: skip
    assert t["sketch_out"].tolist() == [[PLUS, RANGE, RANGE, END, IGNORE],
                                         [SUM, COLON, RANGE, RANGE, END]]  # fmt: skip
    assert t["pointers"].tolist() == [[IGNORE, 5, 6, IGNORE, IGNORE],
                                       [IGNORE, IGNORE, 5, 7, IGNORE]]  # fmt: skip


def test_loss_is_finite_and_the_warm_phase_has_no_range_loss(tokenizer):
    model = FormulaPredictionModel(tiny_encoder(), DecoderConfig(layers=1, heads=2, dropout=0.0))
    batch = fp_batch(formula_examples(expense_table(), tokenizer))
    loss, logs = model(batch)
    assert torch.isfinite(loss)
    assert logs["n/range"] == 10.0 and logs["n/sketch"] == 23.0
    model.range_weight = 0.0
    warm, _ = model(batch)
    assert float(warm.detach()) == pytest.approx(logs["loss/sketch"], rel=1e-5)


def test_splits_by_workbook_and_the_low_resource_subset(tokenizer):
    tables = [expense_table(), expense_table(corner="=D2+D3")]
    everything = SplitConfig(train=1.0, dev=0.0)
    split = split_examples(tables, tokenizer, FormulaExamplesConfig(), everything)
    assert [len(split[s]) for s in ("train", "dev", "test")] == [10, 0, 0]
    tested = split_examples(tables, tokenizer, split=SplitConfig(overrides={"expenses": "test"}))
    assert len(tested["test"]) == 10
    subset = low_resource(split["train"], random.Random(0))
    assert len(subset) == 2
    assert all(any(s is ex for ex in split["train"]) for s in subset)
    assert len(train_subset(split["train"], "full", random.Random(0))) == 10
    assert len(train_subset(split["train"], "low_resource", random.Random(0))) == 2
    with pytest.raises(ValueError, match="setting must be one of"):
        train_subset(split["train"], "half", random.Random(0))


def test_tiny_model_overfits_a_handful_of_formulas(tokenizer, tmp_path):
    examples = formula_examples(expense_table(), tokenizer)
    cfg = FormulaRunConfig(
        training=FPTraining(steps=120, sketch_warmup=0.25, batch_size=5, dev_checks=0,
                            progress=False),
        optim=Optim(lr=3e-3, encoder_lr=3e-3, warmup=0.0, weight_decay=0.0),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0),
    )  # fmt: skip
    encoder = tiny_encoder()
    encoder.embeddings.word_embeddings.weight.requires_grad_(False)  # 30k rows: slow to step
    model, _ = finetune_formula_prediction(examples, [], encoder, cfg, tmp_path)
    metrics, records = evaluate_formula_prediction(model, examples, beam=5)
    assert metrics["formula_top1"] == 1.0, records
    assert metrics["sketch_top1"] == 1.0 and metrics["range_acc"] == 1.0
    assert [r["candidates"][0]["formula"] for r in records] == [
        "=B2+C2", "=B3+C3", "=SUM(B2:B3)", "=SUM(C2:C3)", "=SUM(D2:D3)"
    ]  # fmt: skip
    assert records[0]["cell"] == "D2" and records[0]["error"] == "correct"
    greedy, _ = evaluate_formula_prediction(model, examples, beam=1, top_k=1)
    assert greedy["formula_top1"] == 1.0


def test_frozen_encoder_layers_do_not_move_and_the_rest_trains(tokenizer, tmp_path):
    from fortap.tasks.formula_prediction.config import FPEncoder
    from fortap.tasks.formula_prediction.run import start_encoder

    cfg = FormulaRunConfig(
        encoder=FPEncoder(name="random", freeze=1),
        training=FPTraining(steps=3, batch_size=5, dev_checks=0, progress=False),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0),
    )  # fmt: skip
    encoder = start_encoder(cfg, tokenizer.vocab_size)
    bottom, top = encoder.encoder.layer[0], encoder.encoder.layer[1]
    assert not any(p.requires_grad for p in bottom.parameters())
    assert all(p.requires_grad for p in top.parameters())
    before = [p.detach().clone() for p in (*bottom.parameters(), *top.parameters())]
    finetune_formula_prediction(formula_examples(expense_table(), tokenizer), [], encoder, cfg,
                                tmp_path)  # fmt: skip
    n = len(list(bottom.parameters()))
    after = [p.detach() for p in (*bottom.parameters(), *top.parameters())]
    assert all(torch.equal(a, b) for a, b in zip(before[:n], after[:n], strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(before[n:], after[n:], strict=True))
    every = start_encoder(dataclasses.replace(cfg, encoder=FPEncoder(freeze=-1)), 100)
    assert not any(p.requires_grad for p in every.encoder.parameters())
    assert all(p.requires_grad for p in every.embeddings.parameters())
    with pytest.raises(ValueError, match="freeze must be >= -1"):
        FPEncoder(freeze=-2)
