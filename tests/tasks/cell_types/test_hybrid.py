"""The hybrid model's parts: a frozen encoder's states of each labelled cell (owner window,
row-major, NaN where unshown), their cache, the reduction fitted on training cells, the
joined columns, and the hybrid and states-alone heads on the ten smallest real SAUS files."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import FortapError
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.tasks.cell_types.boosted import Choice
from fortap.tasks.cell_types.examples import owners, table_windows
from fortap.tasks.cell_types.feature_models import labelled_features
from fortap.tasks.cell_types.features import FEATURE_NAMES
from fortap.tasks.cell_types.hybrid import fit_reduction, hybrid, hybrid_data, state_names
from fortap.tasks.cell_types.saus import read_saus
from fortap.tasks.cell_types.split import fold_sides, load_folds
from fortap.tasks.cell_types.states import (
    labelled_cells,
    load_states,
    save_states,
    sheet_states,
    window_states,
)

from .sheets import saus_record, write_real_saus


@pytest.fixture(scope="module")
def encoder(tokenizer):
    torch.manual_seed(0)
    return FortapEncoder(ModelConfig.tiny(vocab_size=tokenizer.vocab_size)).eval()


@pytest.fixture(scope="module")
def one_sheet(tmp_path_factory):
    """The literal 3x3 SAUS sheet of `sheets.saus_record`, read as the task reads SAUS."""
    path = tmp_path_factory.mktemp("saus") / "saus.jl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(saus_record("a.xls")) + "\n")
    return read_saus(path)[0]


def test_labelled_cells_are_row_major_as_the_features():
    assert labelled_cells(((-100, 2), (3, -100))) == [(0, 1), (1, 0)]


def test_each_labelled_cell_gets_its_owner_windows_state(encoder, one_sheet, tokenizer):
    cfg = SerializeConfig(max_seq_len=64)
    states = sheet_states(encoder, one_sheet, tokenizer, cfg)
    cells = labelled_cells(one_sheet.labels)
    assert cells == [(0, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]
    assert states.shape == (6, 64) and np.isfinite(states).all()
    windows = table_windows(one_sheet.table(), tokenizer, cfg, one_sheet.labels)
    per_window, own = window_states(encoder, windows), owners(windows)
    for i, rc in enumerate(cells):
        w, k = own[rc]
        np.testing.assert_allclose(states[i], per_window[w][k], atol=1e-6)


def test_states_round_trip_through_the_cache_in_float16(tmp_path):
    states = {"b.xls!S": np.asarray([[1.0, np.nan]], np.float32), "a.xls!S": np.zeros((2, 2))}
    save_states(tmp_path / "e.npz", states, "e")
    back = load_states(tmp_path / "e.npz")
    assert sorted(back) == ["a.xls!S", "b.xls!S"] and back["a.xls!S"].shape == (2, 2)
    assert back["b.xls!S"][0, 0] == 1.0 and np.isnan(back["b.xls!S"][0, 1])
    with pytest.raises(FortapError, match="no cell states"):
        load_states(tmp_path / "missing.npz")


def test_the_reduction_keeps_the_main_direction_and_an_unshown_cell_stays_missing():
    line = np.asarray([[t, 2 * t, 0.1 * (-1) ** i] for i, t in enumerate(range(-3, 4))])  # (7, 3)
    reduction = fit_reduction(np.concatenate([line, np.full((1, 3), np.nan)]), dims=1)
    np.testing.assert_allclose(np.abs(reduction.components[:, 0]), [1, 2, 0] / np.sqrt(5),
                               atol=1e-2)  # fmt: skip
    reduced = reduction.reduce(np.asarray([[1.0, 2.0, 0.0], [np.nan] * 3]))
    assert abs(abs(reduced[0, 0]) - np.sqrt(5)) < 1e-2 and np.isnan(reduced[1, 0])
    with pytest.raises(FortapError, match="cannot reduce"):
        fit_reduction(line, dims=4)


def test_the_joined_columns_are_the_features_then_the_named_states():
    data = {"a": (np.ones((2, len(FEATURE_NAMES)), np.float32), np.asarray([0, 1]))}
    reduction = fit_reduction(np.asarray([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), dims=2)
    joined, names = hybrid_data(data, {"a": np.zeros((2, 2))}, reduction)
    assert names == FEATURE_NAMES + ("state_0", "state_1") and joined["a"][0].shape == (2, len(FEATURE_NAMES) + 2)
    alone, names = hybrid_data(data, {"a": np.zeros((2, 2))}, reduction, with_features=False)
    assert names == state_names(2) and alone["a"][0].shape == (2, 2)
    with pytest.raises(FortapError, match="a: 2 labelled cells but 3 cell states"):
        hybrid_data(data, {"a": np.zeros((3, 2))}, reduction)


def test_the_hybrid_and_the_states_alone_type_every_cell_of_the_held_out_fold(data_dir, tmp_path):
    folder = write_real_saus(data_dir, tmp_path)
    sheets = read_saus(folder)
    train, test = fold_sides(sheets, load_folds(str(folder / "folds.json")), 0)
    data = {s.key: labelled_features(s) for s in sheets}
    rng = np.random.default_rng(0)
    states = {s.key: rng.normal(size=(len(data[s.key][1]), 8)).astype(np.float32) for s in sheets}
    for with_features in (True, False):
        scored, choice = hybrid(train, test, data, states, dims=4, with_features=with_features)
        assert [len(p) for _, p in scored] == [len(data[s.key][1]) for s in test]
        assert choice.rounds > 0
    given = Choice({"num_leaves": 15, "min_data_in_leaf": 5}, 3)  # the boosted model's, say
    scored, choice = hybrid(train, test, data, states, dims=4, choice=given)
    assert choice is given and [len(p) for _, p in scored] == [len(data[s.key][1]) for s in test]
