"""`fortap check-model`'s quick check: a folder's stored sample scores, read back and compared,
refused when the stored record is malformed or names another sample."""

from __future__ import annotations

import dataclasses
import json

import pytest
from rich.console import Console

from fortap.errors import CheckpointError, FortapError
from fortap.tasks import check_model, model_folder
from fortap.tasks.model_folder import CheckReport, FolderKind


def _folder(tmp_path, metrics: dict):
    folder = tmp_path / "model"
    model_folder.write_meta(folder, model_folder.FolderMeta("toy", None, {}, (), "toy"))
    model_folder.write_metrics(folder, metrics)
    return folder


def test_stored_sample_round_trip(tmp_path):
    folder = _folder(tmp_path, {"data": "x", "dev": 0.5})
    assert model_folder.stored_sample(folder) is None
    model_folder.store_sample(folder, "3 dev questions", {"accuracy": 0.25})
    assert model_folder.stored_sample(folder) == {"sample": "3 dev questions",
                                                  "scores": {"accuracy": 0.25}}  # fmt: skip
    assert model_folder.read_metrics(folder)["dev"] == 0.5  # the rest kept
    (folder / "metrics.json").write_text(json.dumps({"check": {"sample": "x", "scores": 3}}))
    with pytest.raises(CheckpointError, match="not"):
        model_folder.stored_sample(folder)


class _Toy:
    """A task whose full check and quick check count their calls."""

    def __init__(self, quick: float, what: str = "3 dev questions"):
        self.calls: list[str] = []
        self.quick, self.what = quick, what

    def check(self, folder, tables):
        self.calls.append("full")
        return CheckReport.of({"dev": 0.5}, {"dev": 0.5}, ["dev"])

    def check_sample(self, folder, tables):
        self.calls.append("sample")
        return self.what, {"accuracy": self.quick}


def _run(monkeypatch, folder, toy, **kwargs) -> bool:
    from fortap.tasks.base import Task

    kinds = (FolderKind("toy", (), lambda folder: None),)
    found = Task("toy", "", object, check=toy.check, check_sample=toy.check_sample, folders=kinds)
    monkeypatch.setattr(check_model, "task", lambda name: dataclasses.replace(found, name=name))
    return check_model.run_check_model(folder, console=Console(quiet=True), **kwargs)


def test_quick_check_uses_the_stored_sample(tmp_path, monkeypatch):
    folder = _folder(tmp_path, {"dev": 0.5})
    toy = _Toy(0.25)
    assert _run(monkeypatch, folder, toy)  # nothing stored: the full check
    assert toy.calls == ["full"]
    assert _run(monkeypatch, folder, toy, store=True)  # full, then the sample stored
    assert toy.calls == ["full", "full", "sample"]
    assert _run(monkeypatch, folder, toy) and toy.calls[-1] == "sample"
    assert not _run(monkeypatch, folder, _Toy(0.3))  # the sample's score moved: fails
    assert _run(monkeypatch, folder, toy, full=True) and toy.calls[-1] == "full"
    with pytest.raises(FortapError, match="--store-sample"):
        _run(monkeypatch, folder, _Toy(0.25, what="5 dev questions"))
