"""`fortap build-corpus`: layout, de-duplication, resume after a kill, workers, the CLI."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.corpus.build import BuildInterrupted, read_corpus, run_build_corpus
from fortap.corpus.samples import FORMULA_KEY
from fortap.errors import FortapError
from fortap.outputs import MARKER
from fortap.table.io import write_jsonl

from .formula_tables import sales_table

BOOKS = ["euses/act3_lab23_posey.xlsx", "tasi/cs101/act3_lab23_posey.xls", "euses/budget.xlsx",
         "poi/grades.xlsx", "poi/inventory.xlsx", "web/sales.xlsx", "web/costs.xlsx"]  # fmt: skip


@pytest.fixture
def inputs(tmp_path: Path, data_dir: Path) -> list[Path]:
    """Table JSONL of 7 books (two copies of one) and two real HiTab tables."""
    path = tmp_path / "in" / "tables.jsonl"
    path.parent.mkdir()
    write_jsonl(path, [sales_table(book) for book in BOOKS])
    raw = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[:2]
    return [path, *raw]


def build(inputs, out, **kw):
    return run_build_corpus(inputs, out, tables_per_task=2, progress=False, **kw)


def corpus_files(out: Path) -> dict[str, bytes]:
    """Every shard, marker and index file by relative path (stats.json has timings; the CLI's
    output marker, `outputs.MARKER`, is not the corpus's)."""
    skip = ("stats.json", MARKER)
    files = sorted(p for p in out.rglob("*") if p.is_file() and p.name not in skip)
    return {str(p.relative_to(out)): p.read_bytes() for p in files}


def test_build_layout_and_stats(tmp_path, inputs):
    out = tmp_path / "corpus"
    stats = build(inputs, out)
    assert stats["tables"] == 9
    assert stats["duplicate_tables"] == 1  # the .xls copy of act3_lab23_posey
    assert stats["verdicts"] == {"keep": 36}  # 6 formulas x 6 distinct books
    assert stats["formula_samples"] == 36 and stats["table_samples"] == 2  # HiTab tables
    assert sum(stats["samples"].values()) == 38
    assert stats["objectives"]["ncp"] == 36 and stats["objectives"]["nrp"] == 36
    assert stats["objectives"]["formula_mlm"] == stats["modes"].get("tokens", 0)
    split = json.loads((out / "split.json").read_text())
    assert split["duplicates"] == {"tasi/cs101/act3_lab23_posey.xls": "euses/act3_lab23_posey.xlsx"}
    assert set(split["splits"]) == {"act3lab23posey", "budget", "grades", "inventory", "sales",
                                    "costs", "01nsf21326tab001", "0totto1093"}  # fmt: skip
    index = json.loads((out / "index.json").read_text())
    assert sum(index[s]["rows"] for s in index) == 38
    for name in ("train", "dev", "test"):
        for example in read_corpus(out, name):
            assert example.meta["split"] == name == split["splits"][example.meta["book_key"]]
    samples = [e for s in ("train", "dev", "test") for e in read_corpus(out, s)]
    assert sum(FORMULA_KEY in e.targets for e in samples) == 36


def test_killed_build_resumes_to_the_same_corpus(tmp_path, inputs):
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    build(inputs, clean)
    with pytest.raises(BuildInterrupted):
        build(inputs, killed, stop_after=2)
    assert not (killed / "index.json").exists()
    shard = next((killed / "shards").rglob("*.parquet"))
    (shard.parent / "part-99999.parquet.tmp").write_bytes(
        b"half a shard"
    )  # a writer killed mid-way
    marker = killed / "tasks" / "00001.json"
    marker.unlink()  # a task whose shards exist but whose marker was never written
    build(inputs, killed)
    (shard.parent / "part-99999.parquet.tmp").unlink()
    assert corpus_files(killed) == corpus_files(clean)


def test_two_workers_build_the_same_corpus(tmp_path, inputs):
    build(inputs, tmp_path / "one")
    build(inputs, tmp_path / "two", workers=2)
    assert corpus_files(tmp_path / "two") == corpus_files(tmp_path / "one")


def test_other_inputs_are_refused_in_a_built_folder(tmp_path, inputs):
    out = tmp_path / "corpus"
    build(inputs, out)
    with pytest.raises(FortapError, match="other inputs or settings"):
        build(inputs[:1], out)


def test_cli_builds_a_corpus(tmp_path, inputs):
    out = tmp_path / "corpus"
    args = ["build-corpus", *map(str, inputs), "-o", str(out), "--tables-per-task", "4"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "formulas kept" in result.output
    assert json.loads((out / "stats.json").read_text())["verdicts"] == {"keep": 36}


def test_build_killed_by_a_signal_resumes_to_the_same_corpus(tmp_path):
    """A real kill: SIGKILL the CLI in a subprocess once its first task marker appears."""
    path = tmp_path / "in" / "tables.jsonl"
    path.parent.mkdir()
    write_jsonl(path, [sales_table(f"books/book{i:03d}.xlsx") for i in range(40)])
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    args = ["-m", "fortap", "build-corpus", str(path), "--tables-per-task", "1", "--no-progress"]
    build_args = [str(path)]
    run_build_corpus(build_args, clean, tables_per_task=1, progress=False)
    process = subprocess.Popen([sys.executable, *args, "-o", str(killed)])
    try:
        deadline = time.monotonic() + 60
        while not list((killed / "tasks").glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.01)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL
    assert not (killed / "index.json").exists()  # killed midway, not after the end
    run_build_corpus(build_args, killed, tables_per_task=1, progress=False)
    for junk in killed.rglob("*.tmp"):  # a shard or marker the kill cut short
        junk.unlink()
    assert corpus_files(killed) == corpus_files(clean)
