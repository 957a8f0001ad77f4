"""`tasks.folders.from_pretrained`: any model folder loaded through the kinds its task declares;
an undeclared kind or a missing declared file refused by name, before any weight is read."""

from __future__ import annotations

import shutil

import pytest

from fortap.errors import CheckpointError
from fortap.tasks import model_folder
from fortap.tasks.cell_types.cell_typer import CellTyper
from fortap.tasks.folders import declared, from_pretrained
from fortap.tasks.registry import names, task

SHIPPED = model_folder.shipped("cell-types")


def test_shipped_cell_types_loads_as_its_door():
    typer = from_pretrained(SHIPPED)
    assert isinstance(typer, CellTyper) and typer.kind == "boosted"


def test_every_shipped_task_folder_is_a_declared_kind():
    root = model_folder.models_root()
    for meta in sorted(root.glob("*/model.json")):
        found = declared(meta.parent)
        assert found.kind == model_folder.folder_kind(meta.parent)


def test_every_task_declares_its_encoder_kind():
    for name in names():
        kinds = {f.kind for f in task(name).folders}
        assert model_folder.ENCODER_KIND in kinds, name


def test_missing_file_and_unknown_kind_are_named(tmp_path):
    copy = tmp_path / "cell-types"
    shutil.copytree(SHIPPED, copy)
    (copy / "booster.txt").unlink()
    with pytest.raises(CheckpointError, match="of kind 'boosted' without booster.txt"):
        from_pretrained(copy)
    meta = model_folder.read_meta(SHIPPED, "cell-types", kind="boosted")
    model_folder.write_meta(copy, model_folder.FolderMeta("cell-types", None, meta.head,
                                                          meta.labels, "forest"))  # fmt: skip
    with pytest.raises(CheckpointError, match="kind 'forest'; this fortap loads the kinds "
                                              "boosted, encoder, hybrid"):  # fmt: skip
        from_pretrained(copy)


def test_every_shipped_metrics_json_has_the_one_schema():
    for meta in sorted(model_folder.models_root().glob("*/model.json")):
        folder = meta.parent
        record = model_folder.read_metrics(folder)
        assert tuple(record)[: len(model_folder.HEADER)] == model_folder.HEADER, folder
        assert record["task"] == model_folder.folder_task(folder)
        assert record["kind"] == model_folder.folder_kind(folder)
        assert model_folder.data_path(record["data"]).is_dir(), record["data"]
        assert record["split"] and record["metrics"], folder
        assert all(0.0 <= v <= 1.0 for v in record["metrics"].values()), folder
