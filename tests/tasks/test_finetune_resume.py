"""`fortap finetune formula-prediction` through the shared loop: a run stopped mid-way (as a
kill would: its last checkpoint kept) and run again ends bit-identical to an uninterrupted one,
best-dev state included; and the loop's files and progress are there."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import torch

import fortap
from fortap.model.state_file import read_tensors
from fortap.table.io import write_jsonl
from fortap.tasks.formula_prediction.config import FormulaRunConfig, FPTraining
from fortap.tasks.formula_prediction.run import run_finetune

from .expense_table import expense_table

BOOKS = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx")
CFG = FormulaRunConfig(
    training=FPTraining(steps=8, batch_size=4, dev_checks=4, save_every=3, log_every=1,
                        progress=False),
)  # fmt: skip


def tables_file(tmp_path):
    path = tmp_path / "tables.jsonl"
    write_jsonl(path, [dataclasses.replace(expense_table(), book=name) for name in BOOKS])
    return path


def tensors(folder):
    encoder, _ = read_tensors(folder / "encoder" / "model.safetensors")
    decoder, _ = read_tensors(folder / "head.safetensors")
    return {**{f"encoder.{k}": v for k, v in encoder.items()}, **decoder}


def test_a_stopped_run_resumes_to_the_same_parameters(tmp_path):
    tables = tables_file(tmp_path)
    whole = run_finetune([tables], tmp_path / "whole", CFG)
    assert whole is not None
    assert run_finetune([tables], tmp_path / "killed", CFG, stop_at=5) is None
    run = tmp_path / "killed" / "training"
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "step-00000003", "step-00000005"
    ]  # fmt: skip
    assert not (tmp_path / "killed" / "metrics.json").exists()  # nothing evaluated yet
    torch.manual_seed(1)  # the run seeds its own initialisation (the same in every process)
    resumed = run_finetune([tables], tmp_path / "killed", CFG)
    assert resumed is not None
    a, b = tensors(tmp_path / "whole" / "model"), tensors(tmp_path / "killed" / "model")
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype and a[name].equal(b[name]), name
    metrics = [json.loads((tmp_path / d / "metrics.json").read_text()) for d in ("whole", "killed")]
    assert metrics[0]["systems"] == metrics[1]["systems"]
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [e["step"] for e in lines if "loss" in e] == [1, 2, 3, 4, 5, 6, 7, 8]
    dev = [e for e in lines if "eval/loss/formula" in e]
    # dev_checks=4 over 8 updates; the stopped run's last update (5) was checked too, as the
    # end of a run is
    assert [e["step"] for e in dev] == [2, 4, 5, 6, 8]
    # the kept state is the one with the lowest scheduled dev loss (not step 5's)
    best = json.loads((run / "checkpoints" / "step-00000008" / "trainer.json").read_text())
    losses = {e["step"]: e["eval/loss/formula"] for e in dev if e["step"] != 5}
    assert best["best"]["step"] == min(losses, key=losses.get)
    assert (run / "best.safetensors").is_file()
    # the sketch-only warm phase: range loss weight 0 for the first 8 // 4 updates
    assert all(e["loss"] == e["loss/sketch"] for e in lines[:2] if "loss" in e)
    assert lines[3]["loss"] != lines[3]["loss/sketch"]


def test_the_cli_killed_mid_run_resumes_to_the_same_parameters(tmp_path):
    """A real kill (SIGKILL) of `fortap finetune formula-prediction` in a subprocess."""
    tables = tables_file(tmp_path)
    sets = ["--set", "training.save_every=1", "--set", "training.batch_size=4"]
    cfg = dataclasses.replace(CFG, training=dataclasses.replace(
        CFG.training, steps=12, save_every=1, dev_checks=3))  # fmt: skip
    assert run_finetune([tables], tmp_path / "whole", cfg) is not None
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "fortap", "finetune", "formula-prediction", str(tables),
           "-o", str(out), "--steps", "12", "--set", "training.dev_checks=3", *sets,
           "--no-progress", "--threads", "1"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(fortap.__file__).parents[1])}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ckpts = out / "training" / "checkpoints"
    deadline = time.monotonic() + 120
    while not (ckpts / "step-00000003").exists() and proc.poll() is None:
        assert time.monotonic() < deadline, "no checkpoint within 2 minutes"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, proc.stderr.read().decode() if proc.stderr else ""
    steps = [int(p.name.split("-")[1]) for p in ckpts.iterdir() if not p.name.endswith("tmp")]
    assert 3 <= max(steps) < 12 and not (out / "model").exists()  # killed mid-run
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    a, b = tensors(tmp_path / "whole" / "model"), tensors(out / "model")
    assert a.keys() == b.keys() and all(a[k].equal(b[k]) for k in a)
