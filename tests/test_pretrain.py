"""`fortap pretrain` end to end on a few HiTab tables with the tiny preset: losses fall."""

from __future__ import annotations

import json

import pytest
import torch
from typer.testing import CliRunner

from fortap.cli import app
from fortap.model.encoder import FortapEncoder


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_pretrain_cli_on_hitab_tables_losses_fall(data_dir, tmp_path):
    files = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[:12]
    args = ["pretrain", "--config", "tiny", "--objectives", "mlm,cell_cloze,table_context"]
    for path in files:
        args += ["--tables", str(path)]
    args += ["--out", str(tmp_path / "run"), "--steps", "40", "--no-progress"]
    args += ["--set", "serialize.max_seq_len=64", "--set", "data.max_tokens=96"]
    args += ["--set", "training.batch_size=4", "--set", "data.eval_tables=2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = [
        json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    ]
    train = [e for e in lines if "loss" in e]
    evals = [e for e in lines if "eval/loss" in e]
    assert [e["step"] for e in train] == [5, 10, 15, 20, 25, 30, 35, 40]
    assert train[-1]["loss"] < train[0]["loss"]
    assert train[-1]["loss/mlm"] < train[0]["loss/mlm"]
    assert {"loss/cell_cloze", "loss/table_context", "acc/mlm", "lr", "tokens_per_s"} <= set(
        train[0]
    )
    assert [e["step"] for e in evals] == [30, 40]
    assert (tmp_path / "run" / "checkpoints" / "step-00000040" / "trainer.json").is_file()
    encoder = FortapEncoder.from_pretrained(tmp_path / "run" / "encoder")
    assert encoder.config.hidden == 64
    print("pretrain losses:", [round(e["loss"], 3) for e in train])


def test_pretrain_cli_rejects_an_unknown_objective(data_dir, tmp_path):
    path = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[0]
    args = ["pretrain", "--tables", str(path), "--out", str(tmp_path), "--objectives", "mlm,nope"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert "objectives.use names 'nope'" in result.output


def test_examples_from_real_tables_fit_the_budget(data_dir):
    import random

    from fortap.config import load_config
    from fortap.pretrain import load_tables, setup_pretrain

    files = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))[:30]
    cfg = load_config("tiny", ["data.eval_tables=2"])
    setup = setup_pretrain(cfg, load_tables(files))
    rng = random.Random(0)
    lengths = []
    for table in setup.stream.items:
        example = setup.stream.make(table, rng)
        assert example is not None
        assert len(example) <= cfg.data.max_tokens
        assert set(example.targets) == {"mlm", "cell_cloze", "table_context"}
        lengths.append(len(example))
    assert max(lengths) > cfg.serialize.max_seq_len  # appended items go past the table budget
