"""`fortap demo` and `fortap ingest` end to end through the CLI."""

from __future__ import annotations

import json

import torch
from rich.console import Console
from typer.testing import CliRunner

from fortap.cli import app
from fortap.demo.samples import SamplesConfig, write_samples
from fortap.demo.shipped_steps import step_cell_types, step_table_qa

runner = CliRunner()


def test_fortap_demo_runs_end_to_end(tmp_path):
    torch.set_num_threads(2)  # the demo trains on one thread and gives the caller's back
    try:
        result = runner.invoke(app, ["demo", "-o", str(tmp_path / "demo")])
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(1)
    assert result.exit_code == 0, result.output
    assert "tables found" in result.output and "budget" in result.output
    assert len(list((tmp_path / "demo" / "books").glob("*.xlsx"))) == 8
    shards = sorted((tmp_path / "demo" / "tables" / "tables.jsonl").glob("*.jsonl"))
    lines = [line for shard in shards for line in shard.read_text().splitlines()]
    report = json.loads((tmp_path / "demo" / "tables" / "report.json").read_text())
    assert report["totals"]["files_read"] == 8 and report["totals"]["files_skipped"] == 0
    assert len(lines) == report["totals"]["tables"] >= 12
    # steps 4-7: corpus, tiny pretraining, fine-tuning + evaluation, suggestions
    assert "formula prediction (test split)" in result.output and "suggestions for" in result.output
    # step 8: the same cell through the suggestion engine and its shipped ranker
    engine = result.output.split("8. fortap suggest", 1)[1]
    assert engine.split("\n", 1)[0].strip() == "sales.xlsx 'Sales by Region'!B6"
    top = next(line for line in engine.splitlines() if line.startswith("│ 1 "))
    assert "=SUM(B7:B8)" in top and "613726" in top and "filled right" in top
    assert (tmp_path / "demo" / "pretrain" / "encoder").is_dir()
    formula = tmp_path / "demo" / "formula"
    metrics = json.loads((formula / "metrics.json").read_text())
    assert set(metrics["systems"]) == {"model", "rules (paper)", "rules (sheet)", "sketch prior"}
    assert metrics["split"]["train"] > 0 and metrics["split"]["test"] > 0
    assert (formula / "report.md").is_file() and (
        formula / "accuracy_by_sketch_length.png"
    ).is_file()
    # step 9: the population sheet typed by the shipped cell-type model, its grid and PNG
    typed = result.output.split("9. cell types", 1)[1].split("10. table QA", 1)[0]
    assert "Table 12 of population.xlsx" in typed and "M Table 12" in typed
    assert "T Population" in typed and "L Maine" in typed and "= 282146" in typed
    assert f"PNG:{tmp_path / 'demo' / 'cell_types.png'}" in "".join(typed.split())  # folded
    assert (tmp_path / "demo" / "cell_types.png").stat().st_size > 10_000
    # step 10: two questions, each answer with its operation and Excel formula
    qa = [line.strip() for line in result.output.split("10. table QA", 1)[1].splitlines()]
    assert [line for line in qa if line.startswith(("answer:", "operation:", "formula:"))] == [
        "answer: 104470", "operation: none", "formula: =C18",
        "answer: 2020", "operation: argmax",
        "formula: =INDEX(B5:C5,MATCH(MAX(B18:C18),B18:C18,0))",
    ]  # fmt: skip


def test_shipped_model_steps_say_a_missing_model_in_one_line_and_go_on(tmp_path):
    books = write_samples(tmp_path / "books", SamplesConfig(books=("loan", "population")))
    console = Console(record=True, width=300)
    missing = tmp_path / "no-model"
    assert step_cell_types(books, tmp_path / "types.png", console, missing) is None
    assert step_table_qa(books, console, missing) == ()
    assert step_cell_types(books[:1], tmp_path / "types.png", console) is None
    assert console.export_text().splitlines() == [
        f"9. cell types: skipped, no model folder {missing}",
        f"10. table QA: skipped, no model folder {missing}",
        "9. cell types: skipped, no population workbook among the samples",
    ]
    assert not (tmp_path / "types.png").exists()


def test_fortap_ingest_exit_status(tmp_path):
    good = write_samples(tmp_path / "in", SamplesConfig(books=("loan",)))[0]
    bad = tmp_path / "in" / "bad.xlsx"
    bad.write_bytes(b"PK\x03\x04 truncated")
    ok = runner.invoke(app, ["ingest", str(good), str(bad), "-o", str(tmp_path / "a")])
    assert ok.exit_code == 0, ok.output
    assert "read 1 of 2 files" in ok.output
    failed = runner.invoke(app, ["ingest", str(bad), "-o", str(tmp_path / "b")])
    assert failed.exit_code == 1
    report = json.loads((tmp_path / "b" / "report.json").read_text())
    assert report["files"][0]["reason"] == "corrupt_zip"
