"""The audit on a real workbook (ExceLint's `01sumdat.xlsx`, 1,714 typed numbers, 349 formulas):
the same findings on every run, and no year header or table input taken for a missing total."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fortap.audit.auditor import AuditConfig, audit
from fortap.cli import app
from fortap.suggest.engine import Suggester

SUMDAT = "euses_excelint/subjects_xlsx/01sumdat.xlsx"
TIMING = ("seconds",)  # the JSON's fields that may differ between runs


def test_three_runs_give_the_same_json(data_dir):
    args = ["audit", str(data_dir / SUMDAT), "--json", "--max-checks", "100"]
    docs = []
    for _ in range(3):
        got = CliRunner().invoke(app, args)
        assert got.exit_code == 0, got.output
        docs.append({k: v for k, v in json.loads(got.output).items() if k not in TIMING})
    assert docs[0] == docs[1] == docs[2]
    assert (docs[0]["checked"], docs[0]["stopped_by_check_seconds"]) == (100, False)


def test_last_data_rows_and_year_headers_are_not_flagged(data_dir):
    # PM10!H25 is the last row of a table whose mean stands after a blank row (=AVERAGE(H7:H25)
    # in H27); the engine's copy of that mean moved up two rows gives H25's 0 by chance. Rain's
    # J4:K4 (2000, 2001) continue the years typed as text in B4:I4 over the columns' means.
    # a budget past the book's asks, so every typed number of the two sheets is checked (the
    # default 300 is granted over the whole book, whose other sheets ask first)
    done = audit(Suggester.open(data_dir / SUMDAT), ["PM10", "Rain"], AuditConfig(max_checks=3000))
    assert done.checked == done.typed < 300 and done.labels == 2
    flagged = {f"{f.sheet}!{f.a1}" for f in done.findings}
    assert flagged.isdisjoint({"PM10!H25", "Rain!J16", "Rain!K16"})
    assert "Rain!L7" in flagged  # =AVERAGE(B7:J7) among =AVERAGE(B6:K6)...: in ExceLint's key
