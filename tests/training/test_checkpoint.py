"""Checkpoints: bit-exact resume, safetensors only, errors that name the tensor."""

from __future__ import annotations

import json
import pickle

import pytest
import torch

from fortap.errors import CheckpointError
from fortap.table.io import read_tables
from fortap.training.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
from fortap.training.loop import train
from fortap.training.optim import OptimConfig, build_optimizer
from fortap.training.pretrain import setup_pretrain
from fortap.training.run_config import load_config

TINY = [
    "serialize.max_seq_len=64",
    "data.max_tokens=96",
    "data.eval_tables=2",
    "training.batch_size=2",
    "training.steps=6",
    "training.log_every=1",
    "training.progress=false",
    "model.hidden_dropout=0.1",  # dropout on: the torch RNG state must be restored too
]


def run(files, out, stop_at=None, save_every=0):
    cfg = load_config("tiny", [*TINY, f"training.save_every={save_every}"])
    setup = setup_pretrain(cfg, read_tables(files), "random")
    result = train(
        setup.model, setup.stream, cfg.training, cfg.optim, out, setup.eval_batches, stop_at=stop_at
    )
    return setup.model, result


def test_killed_run_resumes_on_the_same_trajectory(hitab_files, tmp_path):
    straight, full = run(hitab_files, tmp_path / "straight")
    _, first = run(hitab_files, tmp_path / "killed", stop_at=3)
    assert first.step == 3 and first.checkpoint.name == "step-00000003"
    resumed, second = run(hitab_files, tmp_path / "killed")
    assert second.resumed_from == first.checkpoint and second.step == 6
    for (name, a), (_, b) in zip(
        straight.state_dict().items(), resumed.state_dict().items(), strict=True
    ):
        assert torch.equal(a, b), name
    losses = [e["loss"] for e in full.history if "loss" in e]
    resumed_losses = [e["loss"] for e in first.history + second.history if "loss" in e]
    assert resumed_losses == losses


def small_setup(hidden=4):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, hidden), torch.nn.LayerNorm(hidden))
    optimizer = build_optimizer(model, OptimConfig())
    model(torch.randn(2, 3)).sum().backward()
    optimizer.step()
    return model, optimizer


def test_round_trip_restores_model_optimizer_and_rng(tmp_path):
    model, optimizer = small_setup()
    path = save_checkpoint(tmp_path, 7, model, optimizer, {"data": {"position": 3}})
    expected_draw = torch.rand(3)
    other, other_opt = small_setup()
    with torch.no_grad():
        for p in other.parameters():
            p.add_(1.0)
    state = load_checkpoint(path, other, other_opt)
    assert state["step"] == 7 and state["data"] == {"position": 3}
    assert torch.equal(torch.rand(3), expected_draw)
    for a, b in zip(model.parameters(), other.parameters(), strict=True):
        assert torch.equal(a, b)
    sa, sb = optimizer.state_dict(), other_opt.state_dict()
    for index, entry in sa["state"].items():
        for key, value in entry.items():
            assert torch.equal(value, sb["state"][index][key]), (index, key)


def test_loading_never_unpickles(tmp_path, monkeypatch):
    model, optimizer = small_setup()
    path = save_checkpoint(tmp_path, 1, model, optimizer, {"data": {}})

    def refuse(*args, **kwargs):
        raise AssertionError("pickle used")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(torch, "load", refuse)
    load_checkpoint(path, *small_setup())
    assert sorted(p.name for p in path.iterdir()) == [
        "model.safetensors",
        "optimizer.safetensors",
        "trainer.json",
    ]


def test_corrupt_checkpoint_names_the_tensor(tmp_path):
    model, optimizer = small_setup()
    path = save_checkpoint(tmp_path, 1, model, optimizer, {"data": {}})
    raw = bytearray((path / "model.safetensors").read_bytes())
    raw[-3] ^= 0xFF  # a byte of the last tensor's data
    (path / "model.safetensors").write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match=r"tensor '1\.(weight|bias)' is corrupt"):
        load_checkpoint(path, *small_setup())


def test_mismatched_checkpoint_names_the_tensor(tmp_path):
    model, optimizer = small_setup(hidden=4)
    path = save_checkpoint(tmp_path, 1, model, optimizer, {"data": {}})
    with pytest.raises(CheckpointError, match=r"tensor '0\.weight' has shape \[4, 3\]"):
        load_checkpoint(path, *small_setup(hidden=5))


def test_only_the_newest_checkpoints_are_kept(tmp_path):
    model, optimizer = small_setup()
    for step in (1, 2, 3):
        save_checkpoint(tmp_path, step, model, optimizer, {"data": {}}, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-00000002", "step-00000003"]
    assert latest_checkpoint(tmp_path).name == "step-00000003"
    assert latest_checkpoint(tmp_path / "missing") is None


CORPUS = [*TINY, "serialize.max_seq_len=224", "data.max_tokens=256", "data.eval_samples=8"]
CORPUS += ["objectives.use=mlm,nrp,ncp,formula_mlm"]


def run_corpus(corpus, out, stop_at=None, extra=()):
    from fortap.training.pretrain import setup_pretrain

    cfg = load_config("tiny", [*CORPUS, *extra])
    setup = setup_pretrain(cfg, corpus, "random")
    result = train(
        setup.model, setup.stream, cfg.training, cfg.optim, out, setup.eval_batches, stop_at=stop_at
    )
    return setup.model, result


def test_killed_corpus_run_resumes_to_the_same_parameters(tiny_corpus, tmp_path):
    straight, _ = run_corpus(tiny_corpus, tmp_path / "straight")
    _, first = run_corpus(tiny_corpus, tmp_path / "killed", stop_at=2)
    assert first.step == 2
    resumed, second = run_corpus(tiny_corpus, tmp_path / "killed")
    assert second.resumed_from == first.checkpoint and second.step == 6
    for (name, a), (_, b) in zip(
        straight.state_dict().items(), resumed.state_dict().items(), strict=True
    ):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-7, msg=name)


def test_killed_run_with_worker_processes_resumes_on_the_same_stream(tiny_corpus, tmp_path):
    """Two workers build the batches ahead; the stopped run's checkpoint holds where the taken
    batches end, so the resumed run trains on the batches the straight run did. One worker
    builds the in-process stream itself."""
    two = ["data.workers=2"]
    straight, _ = run_corpus(tiny_corpus, tmp_path / "straight", extra=two)
    _, first = run_corpus(tiny_corpus, tmp_path / "killed", stop_at=3, extra=two)
    resumed, second = run_corpus(tiny_corpus, tmp_path / "killed", extra=two)
    assert first.step == 3 and second.resumed_from == first.checkpoint and second.step == 6
    state = json.loads((first.checkpoint / "trainer.json").read_text())["data"]
    assert state["workers"] == 2 and len(state["streams"]) == 2
    in_process, _ = run_corpus(tiny_corpus, tmp_path / "in-process")
    one_worker, _ = run_corpus(tiny_corpus, tmp_path / "one-worker", extra=["data.workers=1"])
    for name, a in straight.state_dict().items():
        torch.testing.assert_close(a, resumed.state_dict()[name], rtol=1e-6, atol=1e-7, msg=name)
        torch.testing.assert_close(
            in_process.state_dict()[name], one_worker.state_dict()[name], rtol=0, atol=0, msg=name
        )


def test_formula_samples_only_keeps_the_samples_built_around_a_formula(tiny_corpus, monkeypatch):
    import copy

    from fortap.corpus import build
    from fortap.corpus.samples import FORMULA_KEY
    from fortap.training.pretrain import setup_pretrain

    real = build.read_corpus_arrays
    train = real(tiny_corpus, "train")
    table_sample = copy.copy(train[0])
    table_sample.targets, table_sample.memo = {}, {}  # a formula-free table's sample has none

    def with_a_table_sample(corpus, split):
        return [*real(corpus, split), table_sample] if split == "train" else real(corpus, split)

    monkeypatch.setattr(build, "read_corpus_arrays", with_a_table_sample)
    cfg = load_config("tiny", [*CORPUS, "data.formula_samples_only=true"])
    items = setup_pretrain(cfg, tiny_corpus, "random").stream.items
    assert len(items) == len(train) and all(x.targets.get(FORMULA_KEY) for x in items)
    cfg = load_config("tiny", CORPUS)
    assert len(setup_pretrain(cfg, tiny_corpus, "random").stream.items) == len(train) + 1
    cfg = load_config("tiny", [*CORPUS, "data.formula_samples_only=true", "data.train_per_book=5"])
    assert len(setup_pretrain(cfg, tiny_corpus, "random").stream.items) == 5  # one train book
