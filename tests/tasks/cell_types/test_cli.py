"""`fortap finetune/evaluate cell-types` end to end on five literal SAUS files (one per fold),
a stopped run resuming, and `fortap cell-types` on a real workbook."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.tasks.cell_types.config import CellTypesRunConfig, CTData, CTTraining
from fortap.tasks.cell_types.run import run_finetune
from fortap.tasks.cell_types.split import write_folds

from .sheets import saus_record
from .test_saus import write_saus

FILES = [f"10s000{i}.xls" for i in range(5)]
QUIET = ["--no-progress", "--threads", "1", "--set", "evaluation.rounds=20"]


@pytest.fixture(scope="module")
def saus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("saus")
    write_saus(folder / "saus.jl.gz", [saus_record(f) for f in FILES])
    write_folds([[f] for f in FILES], folder / "folds.json")
    return folder


@pytest.fixture(scope="module")
def finetuned(saus, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    args = ["finetune", "cell-types", str(saus), "-o", str(out), "--encoder", "random",
            "--steps", "3", "--set", f"data.folds={saus / 'folds.json'}", "--set", "data.fold=2", *QUIET]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out, result.output


def test_finetune_writes_the_model_and_scores_the_held_out_file(finetuned):
    out, output = finetuned
    metrics = json.loads((out / "metrics.json").read_text())
    assert list(metrics["files"]) == ["10s0002.xls"]  # fold 2 holds this one file
    assert metrics["scores"]["cells"] == 6 and metrics["unshown"] == 0  # its labelled cells
    assert sum(map(sum, metrics["files"]["10s0002.xls"])) == 6
    assert (out / "model" / "head.json").is_file() and "macro-F1" in output


def test_evaluate_scores_a_saved_model_on_the_same_cells(finetuned, saus, tmp_path):
    out, _ = finetuned
    args = ["evaluate", "cell-types", str(saus), "-o", str(tmp_path), "--model", str(out / "model"),
            "--set", f"data.folds={saus / 'folds.json'}", "--set", "data.fold=2", "--threads", "1",
            "--set", "evaluation.rounds=20"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    again = json.loads((tmp_path / "metrics.json").read_text())
    assert again["files"] == json.loads((out / "metrics.json").read_text())["files"]


def test_a_stopped_run_resumes_where_it_stopped(saus, tmp_path):
    training = CTTraining(steps=4, save_every=2, progress=False)
    cfg = CellTypesRunConfig(data=CTData(folds=str(saus / "folds.json")), training=training)
    assert run_finetune([saus], tmp_path, cfg, stop_at=2) is None
    assert not (tmp_path / "metrics.json").exists()
    record = run_finetune([saus], tmp_path, cfg)
    assert record["notes"]["resumed_from"].endswith("step-00000002")
    steps = [json.loads(line)["step"] for line in (tmp_path / "training" / "metrics.jsonl").open()]
    assert steps[-1] == 4


def test_the_cli_names_what_it_needs(saus, tmp_path):
    result = CliRunner().invoke(
        app, ["finetune", "cell-types", str(saus), str(saus), "-o", str(tmp_path)]
    )
    assert result.exit_code == 1 and "one SAUS folder" in result.output
    result = CliRunner().invoke(app, ["evaluate", "cell-types", str(saus), "-o", str(tmp_path)])
    assert result.exit_code == 1 and "--model OUT/model" in result.output
    result = CliRunner().invoke(app, ["cell-types", str(saus / "none.xlsx")])
    assert result.exit_code == 1 and "--model FOLDER" in result.output


def test_cell_types_prints_the_typed_grid_of_a_real_workbook(finetuned, data_dir, tmp_path):
    out, _ = finetuned
    book = (
        data_dir
        / "hitab/annotation_examples/Sentence Revision Alignment Conversion-StatCan/10.xlsx"
    )
    png = tmp_path / "types.png"
    args = [
        "cell-types",
        str(book),
        "--model",
        str(out / "model"),
        "--png",
        str(png),
        "--rows",
        "8",
    ]
    result = CliRunner().invoke(app, [*args, "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert "Agaricus" in result.output and "types: metadata" in result.output
    assert png.stat().st_size > 10_000
