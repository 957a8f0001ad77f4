"""Where fortap finds its shipped models: `$FORTAP_MODELS`, else the repository's models/."""

from __future__ import annotations

from pathlib import Path

from fortap.tasks import model_folder
from fortap.tasks.model_folder import MODELS_ENV, models_root, repository, shipped

CHECKOUT = Path(__file__).resolve().parents[2]


def test_a_checkout_finds_its_own_models_folder(monkeypatch):
    monkeypatch.delenv(MODELS_ENV, raising=False)
    assert repository() == CHECKOUT
    assert shipped("cell-types") == CHECKOUT / "models" / "cell-types"
    assert (shipped("cell-types") / "model.json").is_file()


def test_the_environment_points_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setenv(MODELS_ENV, str(tmp_path))
    assert models_root() == tmp_path
    assert shipped("table-qa") == tmp_path / "table-qa"


def test_an_installed_wheel_looks_in_the_working_folder_and_says_how_to_point(
    monkeypatch, tmp_path
):
    monkeypatch.delenv(MODELS_ENV, raising=False)
    monkeypatch.setattr(model_folder, "repository", lambda: None)
    monkeypatch.chdir(tmp_path)
    assert shipped("table-qa") == tmp_path / "models" / "table-qa"
    hint = model_folder.where_shipped(shipped("table-qa"))
    assert MODELS_ENV in hint and str(tmp_path / "models") in hint
