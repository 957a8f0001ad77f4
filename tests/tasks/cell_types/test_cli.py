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
    assert (out / "model" / "model.json").is_file() and "macro-F1" in output


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
    book = saus / "none.xlsx"
    result = CliRunner().invoke(app, ["cell-types", str(book), "--model", str(saus / "missing")])
    assert result.exit_code == 1 and "missing: does not exist" in result.output
    assert "--model FOLDER" in result.output


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
    flat = "".join(result.output.split())  # the console wraps long paths anywhere
    assert "".join(f"typed by {out / 'model'}: encoder: a 2-layer".split()) in flat
    assert png.stat().st_size > 10_000


def test_check_model_rescores_the_folder_and_catches_a_changed_metric(finetuned, tmp_path):
    out, _ = finetuned
    model = out / "model"
    card = (model / "README.md").read_text()
    assert "fortap finetune cell-types" in card and "macro-F1" in card
    report = tmp_path / "check.json"
    result = CliRunner().invoke(app, ["check-model", str(model), "--json", str(report)])
    assert result.exit_code == 0, result.output
    rows = json.loads(report.read_text())["results"]
    assert [r["metric"] for r in rows] == ["macro_f1", "derived_f1"]
    assert all(abs(r["diff"]) <= 1e-9 for r in rows)  # the same weights, the same cells
    changed = tmp_path / "changed"
    changed.mkdir()
    for item in model.iterdir():
        target = changed / item.name
        if item.is_dir():
            target.mkdir()
            for f in item.iterdir():
                (target / f.name).write_bytes(f.read_bytes())
        else:
            target.write_bytes(item.read_bytes())
    metrics = json.loads((changed / "metrics.json").read_text())
    metrics["scores"]["macro_f1"] += 0.1
    (changed / "metrics.json").write_text(json.dumps(metrics))
    result = CliRunner().invoke(app, ["check-model", str(changed)])
    assert result.exit_code == 1 and "NOT MET: macro_f1" in result.output


def test_cell_typer_types_a_table_by_name(finetuned):
    from fortap.tasks.cell_types.cell_typer import CellTyper
    from fortap.tasks.cell_types.labels import CELL_TYPES

    from .sheets import grid_table

    out, _ = finetuned
    typer_ = CellTyper.load(out / "model")
    types = typer_.predict(grid_table())
    assert types and set(types.values()) <= set(CELL_TYPES)
    typer_.save(out / "again")
    assert CellTyper.load(out / "again").predict(grid_table()) == types
