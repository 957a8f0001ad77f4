"""`fortap demo` and `fortap ingest` end to end through the CLI."""

from __future__ import annotations

import json

import torch
from typer.testing import CliRunner

from fortap.cli import app
from fortap.demo.samples import SamplesConfig, write_samples

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
