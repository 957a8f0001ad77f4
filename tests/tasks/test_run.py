"""The one fine-tuning run (`fortap.tasks.run.run`) serves every task: a two-update
`fortap finetune` of formula prediction, cell types and table QA on tiny literal data goes
through it, and the optimiser's groups hold the `--lr` and `--encoder-lr` typed; the boosted
cell-type kind fits without the loop through the same run and refuses a loop flag by name."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.table.io import write_jsonl
from fortap.tasks import run as the_run
from fortap.tasks.cell_types.split import write_folds
from fortap.tasks.model_folder import HEADER

from .cell_types.sheets import saus_record, write_real_saus
from .cell_types.test_saus import write_saus
from .expense_table import expense_table
from .table_qa.tiny import write_hitab

LR, ENCODER_LR = 3e-3, 7e-5  # as typed: each reaches AdamW as this number
RATES = ["--lr", "3e-3", "--encoder-lr", "7e-5", "--steps", "2", "--encoder", "random"]
QUIET = ["--no-progress", "--threads", "1"]
SAUS_FILES = [f"10s000{i}.xls" for i in range(5)]


@pytest.fixture
def runs(monkeypatch):
    """(task name, kind) of every run that went through `tasks.run.run`."""
    seen: list[tuple[str, str]] = []
    refuse = the_run.refuse_ignored

    def spy(task):
        seen.append((task.name, task.kind))
        refuse(task)

    monkeypatch.setattr(the_run, "refuse_ignored", spy)
    return seen


def finetune(task: str, data, out, *args: str) -> str:
    result = CliRunner().invoke(app, ["finetune", task, str(data), "-o", str(out), *args])
    assert result.exit_code == 0, result.output
    return result.output


def peak_rates(out) -> set[float]:
    """The peak rate of every AdamW group, as the last checkpoint's trainer.json holds them."""
    last = sorted((out / "training" / "checkpoints").iterdir())[-1]
    groups = json.loads((last / "trainer.json").read_text())["param_groups"]
    assert all(g["params"] for g in groups)
    return {g["peak_lr"] for g in groups}


def saus_folder(tmp_path):
    folder = tmp_path / "saus"
    folder.mkdir()
    write_saus(folder / "saus.jl.gz", [saus_record(f) for f in SAUS_FILES])
    write_folds([[f] for f in SAUS_FILES], folder / "folds.json")
    return folder


def test_formula_prediction_runs_through_the_one_run_with_the_typed_rates(tmp_path, runs):
    tables = tmp_path / "tables.jsonl"
    books = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx")
    write_jsonl(tables, [dataclasses.replace(expense_table(), book=b) for b in books])
    finetune("formula-prediction", tables, tmp_path / "out", *RATES, *QUIET)
    assert runs == [("formula-prediction", "encoder")]
    assert peak_rates(tmp_path / "out") == {LR, ENCODER_LR}
    steps = [json.loads(line)["step"] for line in (tmp_path / "out/training/metrics.jsonl").open()]
    assert max(steps) == 2 and (tmp_path / "out" / "model" / "head.safetensors").is_file()


def test_cell_types_runs_through_the_one_run_with_the_typed_rates(tmp_path, runs):
    saus = saus_folder(tmp_path)
    sets = ["--set", f"data.folds={saus / 'folds.json'}", "--set", "evaluation.rounds=20"]
    finetune("cell-types", saus, tmp_path / "out", *RATES, *QUIET, *sets)
    assert runs == [("cell-types", "encoder")]
    assert peak_rates(tmp_path / "out") == {LR, ENCODER_LR}
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["steps"] == 2 and list(metrics["files"]) == ["10s0000.xls"]
    card = (tmp_path / "out" / "model" / "README.md").read_text()
    assert "--set optim.lr=0.003 --set optim.encoder_lr=7e-05" in card


def test_table_qa_runs_through_the_one_run_with_the_typed_rates(tmp_path, runs):
    hitab = write_hitab(tmp_path / "hitab", copies=2)
    finetune("table-qa", hitab, tmp_path / "out", *RATES, *QUIET, "--set", "evaluation.max_dev=6")
    assert runs == [("table-qa", "encoder")]
    assert peak_rates(tmp_path / "out") == {LR, ENCODER_LR}
    stored = json.loads((tmp_path / "out" / "model" / "metrics.json").read_text())
    assert list(stored) == [*HEADER, "systems"] and "dev" in stored["systems"]["model"]


def test_boosted_cell_types_fit_through_the_one_run_and_refuse_a_loop_flag(
    data_dir, tmp_path, runs
):
    saus = write_real_saus(data_dir, tmp_path / "saus")  # LightGBM needs every class
    sets = ["--set", "model.kind=boosted", "--set", f"data.folds={saus / 'folds.json'}",
            "--set", "evaluation.rounds=20", "--threads", "1"]  # fmt: skip
    start = ["finetune", "cell-types", str(saus), "-o", str(tmp_path / "no"), *sets]
    refused = CliRunner().invoke(app, [*start, "--lr", "3e-3"])
    assert refused.exit_code == 1
    assert "cell-types of kind boosted does not read --lr (optim.lr)" in refused.output
    steps = CliRunner().invoke(app, [*start, "--steps", "5"])
    assert steps.exit_code == 1 and "--steps (training.steps)" in steps.output
    finetune("cell-types", saus, tmp_path / "out", *sets)
    assert runs == [("cell-types", "boosted")] * 3  # refused twice, then fitted
    stored = json.loads((tmp_path / "out" / "model" / "metrics.json").read_text())
    assert (stored["kind"], stored["fold"], stored["held_out"]["folds"]) == ("boosted", 0, [0])
    assert not (tmp_path / "out" / "training").exists()  # no loop, no checkpoints
