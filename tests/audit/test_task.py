"""`fortap evaluate formula-audit` on a literal ExceLint-style key (the registry line's path)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fortap.cli import app

from .books import odd_formula


def test_evaluate_formula_audit(tmp_path):
    key = tmp_path / "key"
    (key / "subjects_xlsx").mkdir(parents=True)
    odd_formula(key / "subjects_xlsx" / "prices.xlsx")
    bugs = {"prices.xlsx": {"Prices": {"bugs": [[3, 5, 0], [3, 7, 0]]}}}  # C5 (found), C7 (not)
    (key / "annotations-processed.json").write_text(json.dumps(bugs))
    out = tmp_path / "out"
    got = CliRunner().invoke(app, ["evaluate", "formula-audit", str(key), "-o", str(out)])
    assert got.exit_code == 0, got.output
    m = json.loads((out / "metrics.json").read_text())["excelint"]
    assert (m["all"]["flagged"], m["all"]["gold"], m["all"]["hits"]) == (1, 2, 1)
    assert (m["formula"]["precision"], m["formula"]["recall"]) == (1.0, 0.5)
    assert "## ExceLint's cells" in (out / "report.md").read_text()
