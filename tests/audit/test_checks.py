"""Audit checks are declared once: a new one is a module and a line in `CHECKS`, the weights
must weigh what the checks declare, and a check writes no fact it did not declare."""

from __future__ import annotations

import json
import math

import openpyxl
import pytest

from fortap.audit import checks
from fortap.audit.auditor import AuditConfig, audit
from fortap.audit.checks import breaks, declared, short_totals, typed_numbers
from fortap.audit.checks.base import Check, Fact, Found
from fortap.audit.findings import INCONSISTENT, MISSING
from fortap.audit.score import WEIGHTS_FILE, load_weights
from fortap.errors import FortapError
from fortap.suggest.api import source_names
from fortap.suggest.engine import Suggester

from . import toy_check


@pytest.fixture(scope="module")
def taxes(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Tax"
    ws.append(["Net", "Tax"])
    ws.append([100, "=A2*0.2"])  # a rate typed into the formula
    path = tmp_path_factory.mktemp("checks") / "tax.xlsx"
    wb.save(path)
    return Suggester.open(path)


def test_the_shipped_checks_in_order():
    assert checks.CHECKS == (short_totals.CHECK, breaks.CHECK, typed_numbers.CHECK)
    assert [(c.name, c.kind) for c in checks.CHECKS] == [
        ("short_totals", INCONSISTENT), ("breaks", INCONSISTENT), ("typed_numbers", MISSING)]  # fmt: skip
    assert typed_numbers.WEAK_SOURCES.issubset(source_names())  # names of sources, not typos
    assert typed_numbers.BARE.issubset(declared()[MISSING])


def test_a_new_check_is_one_module_and_one_line(taxes, tmp_path, monkeypatch):
    monkeypatch.setattr(checks, "CHECKS", (*checks.CHECKS, toy_check.CHECK))  # the one line
    # the shipped weights have no weight for its fact: refused until fitted again
    with pytest.raises(FortapError, match=r"weights.json: its facts are not those the audit's "
                                          r"checks declare \(inconsistent-formula: missing "
                                          r"constants; counts left_out, odd"):  # fmt: skip
        audit(taxes)
    doc = json.loads(WEIGHTS_FILE.read_text())
    doc["weights"][INCONSISTENT]["constants"] = 3.0
    doc["log1p"].append("constants")
    fitted = tmp_path / "weights.json"  # as `fortap finetune formula-audit` would write it
    fitted.write_text(json.dumps(doc))
    done = audit(taxes, cfg=AuditConfig(weights=fitted))
    (f,) = [f for f in done.findings if f.kind == INCONSISTENT]
    assert (f.sheet, f.a1, f.fix, dict(f.facts)) == ("Tax", "B2", None, {"constants": 1.0})
    assert f.evidence == "B2: =A2*0.2 holds 0.2 typed into it"
    bias = doc["bias"][INCONSISTENT]
    assert f.score == round(1 / (1 + math.exp(-(bias + 3.0 * math.log1p(1.0)))), 6) > 0.8
    assert f.score == load_weights(fitted).score(INCONSISTENT, {"constants": 1.0})
    assert f.to_json() in done.to_json()["findings"]  # what `fortap audit --json` prints


def test_a_check_writes_only_the_facts_it_declares(taxes, monkeypatch):
    sloppy = Check("sloppy", INCONSISTENT, (), lambda sheet: [Found((1, 1), {"x": 1.0}, "")])
    monkeypatch.setattr(checks, "CHECKS", (*checks.CHECKS, sloppy))
    with pytest.raises(FortapError, match="check 'sloppy' wrote facts it does not declare at "
                                          "Tax!B2: x"):  # fmt: skip
        audit(taxes)


def test_facts_are_declared_once_per_kind_and_counted_alike():
    def find(sheet):
        return []

    again = Check("again", INCONSISTENT, (Fact("slip", "twice"),), find)
    with pytest.raises(FortapError, match="check 'again': inconsistent-formula fact 'slip' is "
                                          "declared by another check of that kind"):  # fmt: skip
        declared((*checks.CHECKS, again))
    plain = Check("plain", MISSING, (Fact("odd", "a count for breaks"),), find)
    with pytest.raises(FortapError, match="'odd' is a count in one kind and not in another"):
        declared((*checks.CHECKS, plain))
    with pytest.raises(FortapError, match="check 'x': kind 'typo' is not one of"):
        Check("x", "typo", (), find)
    with pytest.raises(FortapError, match="check 'x' declares a twice"):
        Check("x", MISSING, (Fact("a", ""), Fact("a", "")), find)
