"""`fortap finetune formula-audit KEY -o OUT` on a literal ExceLint-style key of three books."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fortap.audit.evaluate import Scored
from fortap.audit.refit import read_findings, write_findings
from fortap.audit.score import load_weights
from fortap.cli import app
from fortap.errors import FortapError

from .books import odd_formula, short_range, typed_total


@pytest.fixture(scope="module")
def key(tmp_path_factory):
    root = tmp_path_factory.mktemp("key")
    (root / "subjects_xlsx").mkdir()
    typed_total(root / "subjects_xlsx" / "sales.xlsx")
    odd_formula(root / "subjects_xlsx" / "prices.xlsx")
    short_range(root / "subjects_xlsx" / "budget.xlsx")
    bugs = {"sales.xlsx": {"Sales": {"bugs": [[4, 4, 0]]}},  # D4 typed over =B4+C4
            "prices.xlsx": {"Prices": {"bugs": [[3, 5, 0]]}},  # C5 =A5*B4
            "budget.xlsx": {"Budget": {"bugs": [[5, 4, 0]]}}}  # E4 =SUM(C4:D4)  # fmt: skip
    (root / "annotations-processed.json").write_text(json.dumps(bugs))
    return root


def finetune(key, out, *more):
    got = CliRunner().invoke(app, ["finetune", "formula-audit", str(key), "-o", str(out), *more])
    assert got.exit_code == 0, got.output
    return got


def test_finetune_writes_a_weights_folder(key, tmp_path):
    out = tmp_path / "w"
    finetune(key, out)
    written = {"README.md", "findings.jsonl", "metrics.json", "weights.json"}
    assert written <= {p.name for p in out.iterdir()}
    weights = load_weights(out / "weights.json")
    found = read_findings(out / "findings.jsonl")
    m = json.loads((out / "metrics.json").read_text())
    assert (m["worksheets"], m["books"], m["key_cells"], m["findings"]) == (3, 3, 3, len(found))
    assert m["seen"]["thresholds"] == weights.thresholds
    assert m["seen"]["audit"]["gold"] == 3
    assert set(m["cross_fit"]) == {"A", "B", "held-out"}
    assert {(s.place[1:], s.kind) for s in found} >= {
        (("Sales", 3, 3), "missing-formula"),
        (("Prices", 4, 2), "inconsistent-formula"),
        (("Budget", 3, 4), "inconsistent-formula"),
    }
    card = (out / "README.md").read_text()
    assert f"fortap finetune formula-audit {key} -o {out}" in card
    assert "every finding of 3 worksheets of 3 books" in weights.fitted_on

    # the same weights again from the saved findings, without auditing, with the books spelled
    # as another run would (the key at another path)
    moved = tmp_path / "moved.jsonl"
    write_findings(moved, [dataclasses.replace(s, place=(f"elsewhere/k/subjects_xlsx/"
                                                         f"{Path(s.place[0]).name}", *s.place[1:]))
                           for s in found])  # fmt: skip
    again = tmp_path / "again"
    finetune(key, again, "--set", f"fit.findings={moved}")
    refit = load_weights(again / "weights.json")
    assert (refit.coef, refit.bias, refit.thresholds) == (
        weights.coef, weights.bias, weights.thresholds)  # fmt: skip
    assert f"--set fit.findings={moved}" in (again / "README.md").read_text()
    assert json.loads((again / "metrics.json").read_text())["seen"] == m["seen"]

    stray = tmp_path / "stray.jsonl"
    write_findings(stray, [dataclasses.replace(found[0], place=("other.xlsx", "S", 0, 0))])
    got = CliRunner().invoke(app, ["finetune", "formula-audit", str(key), "-o",
                                   str(tmp_path / "x"), "--set", f"fit.findings={stray}"])  # fmt: skip
    assert got.exit_code == 1
    assert "stray.jsonl: other.xlsx is not a book of the answer key" in got.output


def test_findings_round_trip_and_bad_lines(tmp_path):
    found = [Scored(("b.xlsx", "S", 3, 2), "missing-formula", 0.5, (("hole", 1.0),))]
    path = tmp_path / "f.jsonl"
    write_findings(path, found)
    assert read_findings(path) == found
    path.write_text('["b.xlsx", "S", 3, 2, "typo", 0.5, {}]\n')
    with pytest.raises(FortapError, match=r"f.jsonl line 1: not a finding \(unknown kind 'typo'\)"):
        read_findings(path)
    with pytest.raises(FortapError, match="nope.jsonl: cannot read findings"):
        read_findings(tmp_path / "nope.jsonl")


def test_finetune_bad_input_is_one_line(tmp_path):
    empty, out = tmp_path / "empty", str(tmp_path / "out")
    empty.mkdir()
    got = CliRunner().invoke(app, ["finetune", "formula-audit", str(empty), "-o", out])
    assert got.exit_code == 1 and "no answer key" in got.output and "Traceback" not in got.output
    bad = CliRunner().invoke(app, ["finetune", "formula-audit", str(empty), "-o", out,
                                   "--set", "fit.c=0"])  # fmt: skip
    assert bad.exit_code == 1 and "fit.c must be > 0" in bad.output
