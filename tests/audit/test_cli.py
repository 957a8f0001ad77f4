"""`fortap audit` from the command line: table, JSON, the report folder, a bad sheet."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fortap.cli import app

from .books import odd_formula, year_block


def test_audit_json_and_report(tmp_path):
    book = odd_formula(tmp_path / "o.xlsx")
    out = tmp_path / "report"
    args = ["audit", str(book), "--json", "-o", str(out)]
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
    assert got.exit_code == 0 and "C5" in got.output and "engine's candidates too" in got.output
    bad = CliRunner().invoke(app, ["audit", str(book), "--sheet", "Nope"])
    assert bad.exit_code == 1 and "Nope" in bad.output


def test_top_caps_the_table_and_80_columns_leave_the_evidence(tmp_path):
    book = year_block(tmp_path / "y.xlsx", typed=True)
    args = ["audit", str(book), "--min-score", "0", "--top", "1"]
    got = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert got.exit_code == 0, got.output
    assert "Plan!E4" in got.output and "=D4*(1+$B$1)" in got.output
    assert "Plan!B4" not in got.output and "evidence" not in got.output.split("\n")[2]
    # every typed number has a score: at --min-score 0 the three others are listed too
    assert "3 more findings under these: --top 0 prints all" in got.output
    wide = CliRunner().invoke(app, args[:-2], env={"COLUMNS": "200"})
    assert "Plan!B4" in wide.output and "typed by hand" in wide.output  # evidence shown
    assert "5 more read as year or code labels" in wide.output


def test_safety_stop_is_reported(tmp_path):
    book = year_block(tmp_path / "y.xlsx", typed=True)
    args = ["audit", str(book), "--check-seconds", "1e-9"]
    doc = json.loads(CliRunner().invoke(app, [*args, "--json"]).output)
    assert (doc["check_seconds"], doc["planned_checks"], doc["checked"]) == (1e-9, 3, 0)
    assert doc["stopped_by_check_seconds"] is True
    got = CliRunner().invoke(app, args)
    assert "--check-seconds 1e-09 stopped the checks after 0 of 3" in got.output
    full = json.loads(CliRunner().invoke(app, ["audit", str(book), "--json"]).output)
    assert (full["checked"], full["stopped_by_check_seconds"]) == (3, False)
    # of the four typed numbers E4 and the starts B4, B5 stand in rows of formulas, and one of
    # them has a fix giving its value: the structure settles it, and the engine gets the other
    # three (stopped: none asked, so the structure alone scores all four)
    assert (doc["scored_by_structure"], full["scored_by_structure"]) == (4, 1)


def test_bad_top_and_the_default_budget(tmp_path):
    from fortap.audit.auditor import AuditConfig
    from fortap.audit.cli import AUDIT_CHECKS

    got = CliRunner().invoke(app, ["audit", str(odd_formula(tmp_path / "o.xlsx")), "--top", "-1"])
    assert got.exit_code == 1 and "--top must be >= 0, got -1" in got.output
    assert AuditConfig.max_checks == AUDIT_CHECKS and AuditConfig.check_seconds == 0.0
