"""Saving and loading a formula-prediction model; the comparison's starting encoders."""

from __future__ import annotations

import json

import pytest
import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.model.config import ModelConfig
from fortap.model.pretrained import baseline_encoder
from fortap.tasks.formula_prediction.checkpoint import (
    default_inputs,
    load_formula_model,
    load_inputs,
    save_formula_model,
)
from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.examples import formula_examples, fp_batch
from fortap.tasks.formula_prediction.model import FormulaPredictionModel

from .expense_table import expense_table, tiny_encoder


def test_saved_model_loads_to_the_same_scores(tokenizer, tmp_path):
    torch.manual_seed(3)
    model = FormulaPredictionModel(tiny_encoder(), DecoderConfig(layers=2, heads=4, dropout=0.0))
    batch = fp_batch(formula_examples(expense_table(), tokenizer))
    model.eval()
    with torch.no_grad():
        before, _ = model(batch)
    save_formula_model(model, tmp_path / "fp")
    loaded = load_formula_model(tmp_path / "fp")
    with torch.no_grad():
        after, _ = loaded(batch)
    assert loaded.decoder.cfg == model.decoder.cfg
    assert float(after) == pytest.approx(float(before), rel=1e-6)
    assert load_inputs(tmp_path / "fp") == default_inputs()  # saved with the default run's


def test_input_settings_are_saved_beside_the_model(tmp_path):
    model = FormulaPredictionModel(tiny_encoder(), DecoderConfig(layers=1, heads=2, dropout=0.0))
    inputs = SerializeConfig(max_seq_len=96, formula_mode="value")
    save_formula_model(model, tmp_path / "fp", inputs)
    assert load_inputs(tmp_path / "fp") == inputs
    meta = json.loads((tmp_path / "fp" / "model.json").read_text())
    meta["inputs"] = {"max_seq_len": 4}
    (tmp_path / "fp" / "model.json").write_text(json.dumps(meta))
    with pytest.raises(
        CheckpointError, match=r"model\.json: bad inputs: SerializeConfig\.max_seq_len"
    ):
        load_inputs(tmp_path / "fp")


def test_pretrained_encoders_come_from_their_folders(tmp_path):
    tiny_encoder(seed=5).save_pretrained(tmp_path / "tuta")
    encoder = baseline_encoder("tuta", tmp_path / "tuta")
    assert encoder.config.hidden == 64
    with pytest.raises(ValueError, match="needs a checkpoint folder"):
        baseline_encoder("fortap")
    with pytest.raises(ValueError, match="name must be one of"):
        baseline_encoder("bert")
    assert baseline_encoder("random", config=ModelConfig.tiny()).config.layers == 2


def test_minilm_encoder_has_the_shipped_weights():
    encoder = baseline_encoder("minilm")
    assert encoder.config.hidden == 384
    assert encoder.embeddings.word_embeddings.weight.std() > 0.03  # not the N(0, 0.02) init
