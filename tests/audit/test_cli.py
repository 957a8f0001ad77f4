"""`fortap audit` from the command line: table, JSON, the report folder, a bad sheet."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fortap.cli import app

from .books import odd_formula


def test_audit_json_and_report(tmp_path):
    book = odd_formula(tmp_path / "o.xlsx")
    out = tmp_path / "report"
    args = ["audit", str(book), "--json", "-o", str(out), "--min-score", "0"]
    got = CliRunner().invoke(app, args)
    assert got.exit_code == 0, got.output
    doc = json.loads(got.output)
    assert [(f["cell"], f["kind"], f["fix"]) for f in doc["findings"]] == [
        ("C5", "inconsistent-formula", "=A5*B5")
    ]
    assert sorted(p.name for p in out.iterdir() if p.name != ".fortap-output.json") == [
        "report.html",
        "report.md",
        "sheet1-Prices.png",
    ]
    assert "| C5 | inconsistent-formula |" in (out / "report.md").read_text()


def test_audit_table_and_bad_sheet(tmp_path):
    book = odd_formula(tmp_path / "o.xlsx")
    got = CliRunner().invoke(app, ["audit", str(book), "--min-score", "0.0"])
    assert got.exit_code == 0 and "C5" in got.output and "typed numbers checked" in got.output
    bad = CliRunner().invoke(app, ["audit", str(book), "--sheet", "Nope"])
    assert bad.exit_code == 1 and "Nope" in bad.output
