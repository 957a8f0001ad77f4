"""`fortap evaluate formula-audit` on a literal ExceLint-style key (the registry line's path)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fortap.cli import app

from .books import typed_total


def test_evaluate_formula_audit(tmp_path):
    key = tmp_path / "key"
    (key / "subjects_xlsx").mkdir(parents=True)
    typed_total(key / "subjects_xlsx" / "sales.xlsx")
    bugs = {"sales.xlsx": {"Sales": {"bugs": [[4, 4, 0], [4, 7, 0]]}}}  # D4 (found), D7 (not)
    (key / "annotations-processed.json").write_text(json.dumps(bugs))
    out = tmp_path / "out"
    got = CliRunner().invoke(app, ["evaluate", "formula-audit", str(key), "-o", str(out)])
    assert got.exit_code == 0, got.output
    m = json.loads((out / "metrics.json").read_text())["excelint"]
    assert (m["all"]["flagged"], m["all"]["gold"], m["all"]["hits"]) == (1, 2, 1)
    assert (m["typed"]["precision"], m["typed"]["recall"]) == (1.0, 1.0)
    assert (m["formula"]["flagged"], m["formula"]["gold"]) == (0, 1)
    assert "## ExceLint's cells" in (out / "report.md").read_text()
