"""The boosted kind of cell-type model folder, end to end on the ten smallest real SAUS files
(two per fold): `fortap finetune cell-types --set model.kind=boosted`, the folder's files and
numbers, `CellTyper.load` round trips, `fortap check-model` and `fortap evaluate` on it, and the
config's refusals."""

from __future__ import annotations

import gzip
import json

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.config import ConfigError
from fortap.errors import CheckpointError
from fortap.sheet.read import read_workbook
from fortap.tasks.cell_types.boosted_typer import BOOSTER
from fortap.tasks.cell_types.cell_typer import CellTyper
from fortap.tasks.cell_types.checkpoint import load_cell_type_model
from fortap.tasks.cell_types.config import CellTypesRunConfig
from fortap.tasks.cell_types.features import FEATURE_NAMES, occupied
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.saus import as_saus
from fortap.tasks.model_folder import MODEL_JSON
from fortap.tasks.run_config import load_run_config

from .sheets import grid_table, write_real_saus

BOOK = "hitab/annotation_examples/Sentence Revision Alignment Conversion-StatCan/10.xlsx"


@pytest.fixture(scope="module")
def saus(data_dir, tmp_path_factory):
    return write_real_saus(data_dir, tmp_path_factory.mktemp("saus"))


def finetune(saus, out, *sets: str):
    args = ["finetune", "cell-types", str(saus), "-o", str(out), "--threads", "1",
            "--set", "model.kind=boosted", "--set", f"data.folds={saus / 'folds.json'}",
            "--set", "evaluation.rounds=20"] + [a for s in sets for a in ("--set", s)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out / "model", result.output


@pytest.fixture(scope="module")
def shipped_like(saus, tmp_path_factory):
    """A folder made as models/cell-types is: every fold trained on, five measured first."""
    return finetune(saus, tmp_path_factory.mktemp("run"), "data.all_folds=true")


def test_the_folder_holds_a_text_booster_and_the_five_fold_numbers(shipped_like):
    model, output = shipped_like
    assert sorted(p.name for p in model.iterdir()) == sorted(
        [BOOSTER, MODEL_JSON, "metrics.json", "README.md"]
    )  # no pickle, no encoder
    assert (model / BOOSTER).read_text().startswith("tree\nversion=")  # LightGBM's text format
    meta = json.loads((model / MODEL_JSON).read_text())
    assert (meta["task"], meta["kind"], meta["inputs"]) == ("cell-types", "boosted", None)
    assert meta["head"]["features"] == list(FEATURE_NAMES) and meta["labels"] == list(CELL_TYPES)
    metrics = json.loads((model / "metrics.json").read_text())
    held = metrics["held_out"]
    assert metrics["fold"] == "all" and held["folds"] == [0, 1, 2, 3, 4]
    assert [r["fold"] for r in held["per_fold"]] == [0, 1, 2, 3, 4]
    mean = sum(r["macro_f1"] for r in held["per_fold"]) / 5
    assert held["macro_f1"] == pytest.approx(mean)
    assert held["cells"] == metrics["training_set"]["cells"]  # every labelled cell held out once
    assert metrics["training_set"]["sheets"] == 10
    card = (model / "README.md").read_text()
    assert "--set 'model.kind=\"boosted\"' --set data.all_folds=True" in card
    assert f"macro-F1 {held['macro_f1']:.3f}" in card and "held out (5 folds)" in output


def test_a_saved_and_loaded_folder_types_the_same_cells_with_the_same_probabilities(
    shipped_like, data_dir, tmp_path
):
    model, _ = shipped_like
    typer = CellTyper.load(model)
    assert typer.kind == "boosted"
    sheet = as_saus(read_workbook(data_dir / BOOK).sheets[0])
    typed = typer.type_sheet(sheet)
    assert set(typed) == {rc for rc, cell in sheet.cells.items() if occupied(cell)}
    assert all(
        k in range(len(CELL_TYPES)) and 1 / len(CELL_TYPES) <= p <= 1 for k, p in typed.values()
    )
    typer.save(tmp_path / "again")
    again = CellTyper.load(tmp_path / "again")
    assert again.type_sheet(sheet) == typed
    types = typer.predict(grid_table())  # a table is typed as a sheet of its own region
    assert again.predict(grid_table()) == types
    assert sorted(types) == [(0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3), (2, 0),
                             (2, 1), (2, 3), (3, 0), (3, 1), (3, 2), (3, 3)]  # fmt: skip


def test_loading_refuses_a_feature_it_does_not_compute_and_the_other_kind(shipped_like, tmp_path):
    model, _ = shipped_like
    with pytest.raises(CheckpointError, match="of kind 'boosted', not 'encoder'"):
        load_cell_type_model(model)
    for item in model.iterdir():
        (tmp_path / item.name).write_bytes(item.read_bytes())
    meta = json.loads((tmp_path / MODEL_JSON).read_text())
    meta["head"]["features"][0] = "font_height"
    (tmp_path / MODEL_JSON).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match=r"does not compute: \['font_height'\]"):
        CellTyper.load(tmp_path)


def test_check_model_scores_the_training_set_again_and_catches_a_changed_number(
    shipped_like, saus, tmp_path
):
    model, _ = shipped_like
    report = tmp_path / "check.json"
    args = ["check-model", str(model), "--tables", str(saus), "--json", str(report)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    checked = json.loads(report.read_text())
    assert [r["metric"] for r in checked["results"]] == [
        "training-set macro_f1",
        "training-set derived_f1",
    ]
    assert all(r["diff"] == 0 for r in checked["results"])  # the same booster, the same cells
    assert checked["rescored"].startswith("the stored booster on its 10 training sheets")
    changed = tmp_path / "changed"
    changed.mkdir()
    for item in model.iterdir():
        (changed / item.name).write_bytes(item.read_bytes())
    metrics = json.loads((changed / "metrics.json").read_text())
    metrics["training_set"]["macro_f1"] -= 0.1
    (changed / "metrics.json").write_text(json.dumps(metrics))
    result = CliRunner().invoke(app, ["check-model", str(changed), "--tables", str(saus)])
    assert result.exit_code == 1 and "NOT MET: training-set macro_f1" in result.output


def test_one_held_out_fold_is_trained_without_it_and_evaluate_scores_it_again(saus, tmp_path):
    model, _ = finetune(saus, tmp_path / "run", "data.fold=3")
    metrics = json.loads((model / "metrics.json").read_text())
    assert metrics["fold"] == 3 and metrics["held_out"]["folds"] == [3]
    assert metrics["training_set"]["sheets"] == 8
    assert (metrics["task"], metrics["kind"], metrics["split"]) == ("cell-types", "boosted",
                                                                    "SAUS fold 3 held out")  # fmt: skip
    assert metrics["metrics"]["macro_f1"] == metrics["held_out"]["macro_f1"]
    args = ["evaluate", "cell-types", str(saus), "-o", str(tmp_path / "eval"), "--model", str(model),
            "--set", f"data.folds={saus / 'folds.json'}", "--set", "data.fold=3",
            "--set", "evaluation.rounds=20"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    record = json.loads((tmp_path / "eval" / "metrics.json").read_text())
    scored = record["scores"]
    assert scored["macro_f1"] == pytest.approx(metrics["held_out"]["macro_f1"])
    assert scored["cells"] == metrics["held_out"]["cells"]
    assert not record["seen_in_training"] and "training-set score" not in result.output
    args[args.index("data.fold=3")] = "data.fold=1"  # a fold it trained on: said, not hidden
    args[args.index(str(tmp_path / "eval"))] = str(tmp_path / "eval-seen")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0 and "training-set score" in " ".join(result.output.split())
    assert json.loads((tmp_path / "eval-seen" / "metrics.json").read_text())["seen_in_training"]


def test_the_config_refuses_every_fold_for_an_encoder_and_an_encoder_for_the_booster():
    with pytest.raises(ConfigError, match="only model.kind=boosted trains on every fold"):
        load_run_config(CellTypesRunConfig, None, ["data.all_folds=true"])
    with pytest.raises(ConfigError, match="model.kind=boosted reads no encoder, got 'minilm'"):
        load_run_config(CellTypesRunConfig, None, ["model.kind=boosted", "encoder.name=minilm"])
    with pytest.raises(ConfigError, match="model.kind must be encoder or boosted"):
        load_run_config(CellTypesRunConfig, None, ["model.kind=forest"])


def test_the_formula_labelled_set_joins_training_and_its_dev_is_scored_by_source(
    saus, tmp_path, data_dir
):
    """`data.formulas=SET`: the set's train tables join every training side (capped per
    source), its dev split is scored by the saved booster, per source, and the card says how
    the set was made; check-model still scores the SAUS training cells alone."""
    set_dir = tmp_path / "set"
    others = write_real_saus(data_dir, tmp_path / "others", n_files=14)  # 4 files past `saus`
    with gzip.open(others / "saus.jl.gz", "rt", encoding="utf-8") as fh:
        lines = [json.loads(line) for line in fh][10:]
    for split, recs in (("train", lines[:2]), ("dev", lines[2:])):
        (set_dir / split).mkdir(parents=True)
        with gzip.open(set_dir / split / "saus.jl.gz", "wt", encoding="utf-8") as fh:
            for i, rec in enumerate(recs):
                fh.write(json.dumps({**rec, "source": f"src{i}"}) + "\n")
    (set_dir / "stats.json").write_text(json.dumps({"sources": {"src0": {}, "src1": {}}}))
    model, output = finetune(saus, tmp_path / "run", "data.fold=0", f"data.formulas={set_dir}",
                             "data.formulas_cap=1")  # fmt: skip
    metrics = json.loads((model / "metrics.json").read_text())
    assert metrics["formulas_train"]["tables"] == 2  # one table per source: the cap keeps one whole
    dev = metrics["formulas"]["dev"]
    assert set(dev["by_source"]) == {"src0", "src1"}
    assert sum(b["cells"] for b in dev["by_source"].values()) == dev["cells"] > 0
    assert sum(b["share"] for b in dev["by_source"].values()) == pytest.approx(1.0)
    assert "test" not in metrics["formulas"]  # scored only with evaluation.formulas_test
    card = (model / "README.md").read_text()
    assert f"fortap build-cell-types ING/* -o {set_dir}" in card and "src0, src1" in card
    assert "formula-labelled dev: macro-F1" in output
    assert metrics["training_set"]["sheets"] == 8  # SAUS's four training folds, not the set
    result = CliRunner().invoke(app, ["check-model", str(model), "--tables", str(saus)])
    assert result.exit_code == 0, result.output


def test_a_formula_set_is_refused_for_an_encoder_and_test_without_a_set():
    with pytest.raises(ConfigError, match="data.formulas"):
        load_run_config(CellTypesRunConfig, None, ["data.formulas=/x"])
    with pytest.raises(ConfigError, match="formulas_test"):
        load_run_config(CellTypesRunConfig, None, ["model.kind=boosted",
                                                   "evaluation.formulas_test=true"])  # fmt: skip
