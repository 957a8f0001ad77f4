"""`fortap check-model` on an encoder folder: the weights against the card's crc32."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.errors import CheckpointError
from fortap.tasks.encoder_check import check_encoder
from fortap.tasks.model_folder import shipped

SMALL = shipped("encoders/fortap-small")


def test_the_shipped_encoder_matches_its_card():
    result = CliRunner().invoke(app, ["check-model", str(SMALL)])
    assert result.exit_code == 0, result.output
    assert "an encoder" in result.output and "met: tensors whose crc32" in result.output


def test_a_changed_checksum_fails_and_a_folder_without_card_is_refused(tmp_path):
    copy = tmp_path / "enc"
    shutil.copytree(SMALL, copy)
    card = copy / "README.md"
    text = card.read_text()
    name, crc = next(line.split() for line in text.splitlines()
                     if line.count(" ") == 1 and len(line.split()[-1]) == 8)  # fmt: skip
    card.write_text(text.replace(f"{name} {crc}", f"{name} {int(crc, 16) ^ 1:08x}"))
    report = check_encoder(copy)
    assert not report.passed
    card.unlink()
    with pytest.raises(CheckpointError, match="no README.md"):
        check_encoder(copy)
