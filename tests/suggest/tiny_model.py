"""A formula-prediction model fine-tuned for a few seconds on a workbook's own tables, saved as
`fortap finetune formula-prediction` saves one (safetensors and JSON), for the model source's
tests."""

from __future__ import annotations

from pathlib import Path

from fortap.sheet.read import read_workbook
from fortap.table import detect_tables
from fortap.tasks.formula_prediction.checkpoint import save_formula_model
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPData, FPTraining
from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.examples import (
    MODE_OF_SETTING,
    FormulaExamplesConfig,
    formula_examples,
    with_serialize,
)
from fortap.tasks.formula_prediction.finetune import finetune_formula_prediction
from fortap.tasks.recipe import Optim
from fortap.text.tokenizer import Tokenizer

from ..tasks.expense_table import tiny_encoder


def tiny_model(book: Path, folder: Path, steps: int = 80, sheet: bool = False) -> Path:
    """Fine-tune a tiny encoder + decoder on the formulas of `book`'s tables; `folder`.
    `sheet`: in the sheet setting (other formulas shown as tokens), with the copy head."""
    tokenizer = Tokenizer()
    cfg = FormulaExamplesConfig()
    if sheet:
        cfg = with_serialize(cfg, formula_mode=MODE_OF_SETTING["sheet"])
    examples = [
        ex
        for sheet in read_workbook(book).sheets
        for table in detect_tables(sheet)
        for ex in formula_examples(table, tokenizer, cfg)
    ]
    run = FormulaRunConfig(
        data=FPData(setting="sheet" if sheet else "paper"),
        training=FPTraining(steps=steps, batch_size=8, dev_checks=0, progress=False),
        optim=Optim(lr=3e-3, encoder_lr=3e-3, warmup=0.0, weight_decay=0.0),
        decoder=DecoderConfig(layers=1, heads=2, dropout=0.0, copy=sheet),
    )
    encoder = tiny_encoder()
    encoder.embeddings.word_embeddings.weight.requires_grad_(False)  # 30k rows: slow to step
    model, _ = finetune_formula_prediction(examples, [], encoder, run, folder / "training")
    save_formula_model(model, folder / "model", cfg.serialize)
    return folder / "model"
