"""The head over a tiny encoder: shapes, class weights, overfitting one batch, padding, and the
saved folder."""

from __future__ import annotations

import json

import pytest
import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.sheet.model import Cell, CellStyle
from fortap.tasks.cell_types.checkpoint import (
    load_cell_type_model,
    save_cell_type_model,
)
from fortap.tasks.cell_types.examples import ct_batch, extra_features, table_windows
from fortap.tasks.cell_types.labels import CELL_TYPES, NO_LABEL
from fortap.tasks.cell_types.model import CellTypeModel, class_weights
from fortap.tasks.cell_types.predict import predict_table, predict_windows
from fortap.tasks.model_folder import MODEL_JSON

from .sheets import LABELS, grid_table

CFG = SerializeConfig(max_seq_len=13)


def tiny_model(tokenizer, weights=None) -> CellTypeModel:
    torch.manual_seed(0)
    config = ModelConfig.tiny(vocab_size=tokenizer.vocab_size, hidden_dropout=0.0)
    return CellTypeModel(FortapEncoder(config), weights)


def test_class_weights_follow_the_power_of_balanced():
    assert class_weights([10, 30, 0], power=1.0) == pytest.approx([4 / 3, 4 / 9, 0.0])
    assert class_weights([10, 30, 0], power=0.0) == [1.0, 1.0, 0.0]


def test_extra_features_of_a_styled_cell():
    cell = Cell("  Ohio", "text", style=CellStyle(indent=2, h_align="center"))
    assert extra_features(cell) == (0.5, 0.0, 1.0, 0.0, 0.25)
    assert extra_features(Cell(3.0, "number")) == (0.0, 1.0, 0.0, 0.0, 0.0)


def test_logits_shape_and_a_window_alone_equals_it_padded_beside_a_longer_one(tokenizer):
    model = tiny_model(tokenizer).eval()
    windows = table_windows(grid_table(), tokenizer, CFG, LABELS)
    batch = ct_batch(windows)
    logits = model.logits(batch)
    assert logits.shape == (len(windows), batch.cell_mask.shape[1], len(CELL_TYPES))
    short = windows[-1]  # 3 cells, padded to 5 in the batch
    alone = model.logits(ct_batch([short]))[0]
    torch.testing.assert_close(logits[-1, : len(short.cell_coords)], alone, atol=1e-5, rtol=1e-5)


def test_the_head_overfits_one_batch(tokenizer):
    model = tiny_model(tokenizer, weights=[1.0] * len(CELL_TYPES))
    batch = ct_batch(table_windows(grid_table(), tokenizer, CFG, LABELS))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(60):
        loss, _ = model(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    _, logs = model.eval()(batch)
    scored = int((batch.targets["cell_types"]["labels"] != NO_LABEL).sum())
    assert logs["n/cell_types"] == scored and logs["acc/cell_types"] == 1.0


def test_a_batch_without_labels_gives_no_gradient(tokenizer):
    model = tiny_model(tokenizer)
    batch = ct_batch(table_windows(grid_table(), tokenizer, CFG))  # no labels at all
    loss, logs = model(batch)
    assert float(loss.detach()) == 0.0 and logs["n/cell_types"] == 0.0


def test_saved_model_types_the_same_cells(tokenizer, tmp_path):
    model = tiny_model(tokenizer).eval()
    save_cell_type_model(model, tmp_path / "model", CFG)
    loaded, inputs = load_cell_type_model(tmp_path / "model")
    assert inputs == CFG
    table = grid_table()
    assert predict_table(loaded, table, tokenizer, inputs) == predict_table(
        model, table, tokenizer, CFG
    )
    windows = table_windows(table, tokenizer, CFG)
    assert [len(p) for p in predict_windows(loaded, windows, 2)] == [
        len(w.cell_coords) for w in windows
    ]
    meta = json.loads((tmp_path / "model" / MODEL_JSON).read_text())
    meta["labels"] = ["header", "data"]
    (tmp_path / "model" / MODEL_JSON).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="trained on labels"):
        load_cell_type_model(tmp_path / "model")
    meta["task"] = "table-qa"
    (tmp_path / "model" / MODEL_JSON).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="holds a table-qa model, not a cell-types model"):
        load_cell_type_model(tmp_path / "model")
    with pytest.raises(CheckpointError, match="is not a model folder"):
        load_cell_type_model(tmp_path)
