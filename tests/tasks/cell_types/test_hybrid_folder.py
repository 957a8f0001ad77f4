"""The hybrid kind of cell-type model folder, end to end on the ten smallest real SAUS files
(two per fold) with the random tiny encoder: `fortap finetune cell-types --set
model.kind=hybrid`, the folder's files and numbers, `CellTyper.load` typing a sheet the same
after a save, and the config's refusals."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.config import ConfigError
from fortap.sheet.model import Cell, Sheet
from fortap.tasks.cell_types.cell_typer import CellTyper
from fortap.tasks.cell_types.config import CellTypesRunConfig
from fortap.tasks.cell_types.hybrid_typer import REDUCTION
from fortap.tasks.model_folder import MODEL_JSON
from fortap.tasks.run_config import load_run_config

from .sheets import GRID, write_real_saus


@pytest.fixture(scope="module")
def folder(data_dir, tmp_path_factory):
    saus = write_real_saus(data_dir, tmp_path_factory.mktemp("saus"))
    out = tmp_path_factory.mktemp("run")
    args = ["finetune", "cell-types", str(saus), "-o", str(out), "--threads", "1",
            "--encoder", "random", "--set", "model.kind=hybrid", "--set", "data.all_folds=true",
            "--set", f"data.folds={saus / 'folds.json'}", "--set", "evaluation.rounds=20"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out / "model"


def test_the_folder_names_its_encoder_and_holds_the_booster_and_components(folder):
    meta = json.loads((folder / MODEL_JSON).read_text())
    assert meta["kind"] == "hybrid" and meta["head"]["encoder"] == "random"
    assert meta["head"]["features"][-1] == "state_31" and (folder / REDUCTION).is_file()
    held = json.loads((folder / "metrics.json").read_text())["held_out"]
    assert held["folds"] == [0, 1, 2, 3, 4] and 0 <= held["macro_f1"] <= 1


def test_a_loaded_folder_types_every_occupied_cell_and_the_same_after_a_save(folder, tmp_path):
    cells = {(r, c): Cell(t, "text") for r, row in enumerate(GRID) for c, t in enumerate(row) if t}
    sheet = Sheet("S", "grid.xlsx", 4, 4, cells)
    typer = CellTyper.load(folder)
    typed = typer.type_sheet(sheet)
    assert sorted(typed) == sorted(cells) and "hybrid" in typer.summary
    typer.save(tmp_path / "again")
    assert CellTyper.load(tmp_path / "again").type_sheet(sheet) == typed


def test_the_config_refuses_an_encoder_the_folder_could_not_name():
    with pytest.raises(ConfigError, match="names its frozen encoder"):
        load_run_config(CellTypesRunConfig, None, ["model.kind=hybrid", "encoder.name=fortap",
                                                   "encoder.checkpoint=x"])  # fmt: skip


def test_check_model_and_evaluate_take_the_hybrid_kind(folder, data_dir, tmp_path):
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["training_set"]["sheets"] == 10 and metrics["fold"] == "all"
    saus = write_real_saus(data_dir, tmp_path / "saus")
    checked = CliRunner().invoke(app, ["check-model", str(folder), "--tables", str(saus)])
    assert checked.exit_code == 0, checked.output
    assert "met: training-set macro_f1" in checked.output and "stored hybrid" in checked.output
    args = ["evaluate", "cell-types", str(saus), "-o", str(tmp_path / "eval"), "--model",
            str(folder), "--set", f"data.folds={saus / 'folds.json'}", "--set", "data.fold=2",
            "--set", "evaluation.rounds=20"]  # fmt: skip
    evaluated = CliRunner().invoke(app, args)
    assert evaluated.exit_code == 0, evaluated.output
    record = json.loads((tmp_path / "eval" / "metrics.json").read_text())
    assert record["system"] == "hybrid random" and record["seen_in_training"]
    assert 0 <= record["scores"]["macro_f1"] <= 1 and record["scores"]["cells"] > 0
