"""`fortap finetune/evaluate formula-prediction` on four copies of the literal expense table,
each in its own workbook: the fallback split, the files written, and the config checks."""

from __future__ import annotations

import dataclasses
import json

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.table.io import write_jsonl
from fortap.tasks.formula_cli import FormulaRunConfig, split_for_run
from fortap.tasks.formula_prediction import FormulaExamplesConfig

from .expense_table import expense_table

BOOKS = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx")


def four_books():
    return [dataclasses.replace(expense_table(), book=name) for name in BOOKS]


def test_split_falls_back_to_name_order_by_workbook(tokenizer):
    split, note = split_for_run(four_books(), tokenizer, FormulaExamplesConfig(), seed=0)
    books = {side: {ex.meta["book"] for ex in split[side]} for side in split}
    assert books == {"train": {"a.xlsx", "b.xlsx"}, "dev": {"c.xlsx"}, "test": {"d.xlsx"}}
    assert "assigned in name order" in note and "2 train, 1 dev, 1 test" in note
    per_book = len(split["test"])
    assert per_book >= 4 and len(split["train"]) == 2 * per_book == 2 * len(split["dev"])


def test_finetune_then_evaluate_write_their_files(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, four_books())
    runner = CliRunner()
    out = tmp_path / "ft"
    args = ["finetune", "formula-prediction", str(tables), "-o", str(out), "--steps", "2"]
    done = runner.invoke(app, [*args, "--curve", "0.5"])
    assert done.exit_code == 0, done.output
    assert "rules (sheet)" in done.output and "best formula top-1" in done.output
    for name in ("predictions.jsonl", "metrics.json", "report.md", "learning_curve.png",
                 "accuracy_by_sketch_length.png", "model/decoder.safetensors"):  # fmt: skip
        assert (out / name).is_file(), name
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics["systems"]) == {"model", "rules (paper)", "rules (sheet)"}
    n_test = metrics["split"]["test"]
    assert all(m["n"] == n_test for m in metrics["systems"].values())
    assert [p["share"] for p in metrics["curve"]] == [0.5, 1.0]
    records = (out / "predictions.jsonl").read_text().splitlines()
    assert len(records) == n_test and json.loads(records[0])["book"] == "d.xlsx"
    assert "| rules (sheet) |" in (out / "report.md").read_text()

    ev = tmp_path / "ev"
    again = runner.invoke(
        app, ["evaluate", "formula-prediction", str(tables), "--model", str(out / "model"),
              "-o", str(ev)],
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    # the same saved model on the same split gives the same metrics
    assert json.loads((ev / "metrics.json").read_text())["systems"] == metrics["systems"]


def test_unknown_task_and_missing_checkpoint_are_rejected(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, four_books())
    runner = CliRunner()
    bad_task = runner.invoke(app, ["finetune", "cell-kind", str(tables), "-o", str(tmp_path)])
    assert bad_task.exit_code == 2
    no_ckpt = runner.invoke(
        app, ["finetune", "formula-prediction", str(tables), "-o", str(tmp_path / "x"),
              "--encoder", "fortap", "--steps", "1"],
    )  # fmt: skip
    assert no_ckpt.exit_code == 1 and "needs a checkpoint" in no_ckpt.output


@pytest.mark.parametrize(
    ("field", "value"), [("steps", 0), ("lr", 0.0), ("curve", (1.0,)), ("max_test", -1)]
)
def test_config_rejects_nonsense(field, value):
    with pytest.raises(ValueError, match=f"FormulaRunConfig.{field}"):
        FormulaRunConfig(**{field: value})
