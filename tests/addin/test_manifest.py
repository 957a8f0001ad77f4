"""`fortap addin manifest`: the unified manifest passes `office-addin-manifest validate` (npm's,
which checks a JSON manifest offline against the schema it ships; a broken copy fails it), and
the XML manifest names the pane `fortap serve --addin` serves. Microsoft validates XML manifests
only online, which a test here cannot reach."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fortap.cli import app

VALIDATOR = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "office-addin-manifest"
needs_validator = pytest.mark.skipif(
    not VALIDATOR.exists(), reason=f"{VALIDATOR} not found: scripts/setup.sh runs npm ci"
)


def _write(folder: Path, port: int = 8443):
    result = CliRunner().invoke(app, ["addin", "manifest", "-o", str(folder), "--port", str(port)])
    assert result.exit_code == 0, result.output
    return folder / "manifest.json", folder / "manifest.xml"


def _validate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(VALIDATOR), "validate", str(path)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip


@needs_validator
def test_the_unified_manifest_is_valid_and_a_broken_one_is_not(tmp_path):
    manifest, _ = _write(tmp_path)
    done = _validate(manifest)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = json.loads(manifest.read_text())
    broken["extensions"][0]["runtimes"][0]["type"] = "no-such-type"
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    assert _validate(tmp_path / "broken.json").returncode == 1


def test_both_manifests_name_the_served_pane(tmp_path):
    manifest, xml = _write(tmp_path, port=9443)
    pane = "https://localhost:9443/addin/taskpane.html"
    runtime = json.loads(manifest.read_text())["extensions"][0]["runtimes"][0]
    assert runtime["code"]["page"] == pane
    ns = {"o": "http://schemas.microsoft.com/office/appforoffice/1.1"}
    root = ET.parse(xml).getroot()
    assert root.find("o:DefaultSettings/o:SourceLocation", ns).get("DefaultValue") == pane
    assert (tmp_path / "icon-192.png").read_bytes()[:4] == b"\x89PNG"


def test_an_existing_manifest_is_kept_unless_overwrite(tmp_path):
    _write(tmp_path)
    again = CliRunner().invoke(app, ["addin", "manifest", "-o", str(tmp_path)])
    assert again.exit_code == 1
    assert "exists; pass --overwrite" in again.output
