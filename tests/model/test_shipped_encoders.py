"""The shipped MiniLM-size encoder: rebuilt from the installed MiniLM and its stored difference,
every tensor matches the crc32 its card gives, it fits the size limit, and each task fine-tunes
from it by name (`--encoder fortap-small`)."""

from __future__ import annotations

import dataclasses

import pytest

from fortap.model.encoder import FortapEncoder
from fortap.model.state_file import crc32
from fortap.tasks.encoder_check import card_sums
from fortap.tasks.recipe import SHIPPED_ENCODERS

SMALL = SHIPPED_ENCODERS / "fortap-small"


@pytest.fixture(scope="module")
def small() -> FortapEncoder:
    return FortapEncoder.from_pretrained(SMALL)


def test_the_rebuilt_encoder_matches_every_checksum_of_its_card(small):
    sums = card_sums(SMALL)
    state = small.state_dict()
    assert sums.keys() == state.keys()
    for name, tensor in state.items():
        assert f"{crc32(tensor):08x}" == sums[name], name


def test_only_the_difference_from_minilm_is_stored_within_the_size_limit(small):
    assert small.config.words_from == "minilm-bf16" and small.config.hidden == 384
    size = sum(f.stat().st_size for f in SMALL.iterdir() if f.suffix != ".md")
    assert size <= 25e6
    assert (SMALL / "pretraining_books.json").is_file()  # the QA leak test reads it


def test_cell_types_fine_tunes_from_it(data_dir, tmp_path):
    from typer.testing import CliRunner

    from fortap.cli import app
    from tests.tasks.cell_types.sheets import write_real_saus

    saus = write_real_saus(data_dir, tmp_path / "saus")
    args = ["finetune", "cell-types", str(saus), "-o", str(tmp_path / "run"), "--threads", "1",
            "--encoder", "fortap-small", "--steps", "1", "--no-progress",
            "--set", f"data.folds={saus / 'folds.json'}"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "macro-F1" in result.output


def test_table_qa_fine_tunes_from_it(tmp_path):
    from fortap.tasks.run_config import load_run_config
    from fortap.tasks.table_qa.config import QARunConfig
    from fortap.tasks.table_qa.run import run_finetune
    from tests.tasks.table_qa.tiny import write_hitab

    hitab = write_hitab(tmp_path / "hitab", copies=1)
    cfg = load_run_config(QARunConfig, overrides=[
        "encoder.name=fortap-small", "training.steps=1", "training.dev_checks=0",
        "training.progress=false", "training.threads=1"])  # fmt: skip
    systems = run_finetune([hitab], tmp_path / "run", cfg)
    assert systems is not None and "model" in systems["test"]


def test_formula_prediction_fine_tunes_from_it(tmp_path):
    from fortap.table.io import write_jsonl
    from fortap.tasks.formula_prediction.config import FormulaRunConfig
    from fortap.tasks.formula_prediction.run import run_finetune
    from fortap.tasks.run_config import load_run_config
    from tests.tasks.expense_table import expense_table

    tables = tmp_path / "tables.jsonl"
    books = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx")
    write_jsonl(tables, [dataclasses.replace(expense_table(), book=b) for b in books])
    cfg = load_run_config(FormulaRunConfig, overrides=[
        "encoder.name=fortap-small", "training.steps=1", "training.batch_size=2",
        "training.dev_checks=0", "training.progress=false", "training.threads=1"])  # fmt: skip
    assert run_finetune([tables], tmp_path / "run", cfg) is not None
    assert (
        FortapEncoder.from_pretrained(tmp_path / "run" / "model" / "encoder").config.hidden == 384
    )
