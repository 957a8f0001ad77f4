"""The two answer keys read from the shared data (skipped where it is absent), and the metrics
of `evaluate` on a literal key."""

from __future__ import annotations

from pathlib import Path

import pytest

from fortap.audit.evaluate import Scored, tasi_metrics
from fortap.audit.findings import INCONSISTENT, MISSING
from fortap.audit.keys import KeySheet, excelint_key, resolve_sheet, tasi_key
from fortap.audit.measure import NOTHING, half_of
from fortap.sheet.model import Sheet

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


@pytest.mark.skipif(not (DATA / "tasi").is_dir(), reason="no shared TASI data")
def test_tasi_key_counts():
    key = tasi_key(DATA / "tasi")
    kinds = [k for ks in key for k in ks.cells.values()]
    assert (len(key), len({ks.book for ks in key})) == (291, 70)
    assert (kinds.count(MISSING), kinds.count(INCONSISTENT)) == (3024, 678)
    assert all(ks.book.is_file() for ks in key)
    first = key[0]
    assert (first.book.name, first.sheet) == ("act3_lab23_posey.xls", "Sheet1")
    assert first.cells[(16, 3)] == MISSING and first.cells[(5, 5)] == INCONSISTENT  # D17, F6
    assert first.flags["Tasi"] == {(5, 4)}  # E6


@pytest.mark.skipif(not (DATA / "euses_excelint").is_dir(), reason="no shared ExceLint data")
def test_excelint_key_counts():
    key = excelint_key(DATA / "euses_excelint")
    assert (len(key), sum(len(ks.cells) for ks in key)) == (234, 700)
    posey = next(ks for ks in key if ks.book.name == "act3_lab23_posey.xlsx")
    assert (5, 5) in posey.cells and (5, 6) in posey.cells  # [6, 6, 0] = F6, [7, 6, 0] = G6


def test_resolve_sheet_trailing_space():
    sheets = [Sheet("FY 2002 ", "b.xlsx", 1, 1), Sheet("Notes", "b.xlsx", 1, 1)]
    assert resolve_sheet(sheets, "FY 2002", Path("b.xlsx")).name == "FY 2002 "
    with pytest.raises(Exception, match="'Gone' is not in the workbook"):
        resolve_sheet(sheets, "Gone", Path("b.xlsx"))


def test_tasi_metrics_threshold_from_the_other_half():
    # two books whose keys fall in different halves
    a, b = "x/alpha_budget.xls", "x/beta_budget.xls"
    assert half_of(a) != half_of(b)
    cells_a = {(0, 0): MISSING, (1, 0): INCONSISTENT}
    cells_b = {(0, 0): MISSING}
    key = [KeySheet(Path(a), "S", cells_a, {"Tasi": frozenset({(0, 0)})}),
           KeySheet(Path(b), "S", cells_b, {"Tasi": frozenset({(5, 5)})})]  # fmt: skip
    found = [Scored((a, "S", 0, 0), MISSING, 0.9), Scored((a, "S", 1, 0), INCONSISTENT, 0.4),
             Scored((b, "S", 0, 0), MISSING, 0.6), Scored((b, "S", 3, 3), MISSING, 0.3)]  # fmt: skip
    m = tasi_metrics(key, found)
    ha, hb = half_of(a), half_of(b)
    # a: both its cells at 0.9 (missing) and 0.4 (inconsistent); b: its missing cell at 0.6,
    # no inconsistent finding (NOTHING flags none)
    assert m["thresholds_set_on"] == {
        ha: {MISSING: 0.9, INCONSISTENT: 0.4},
        hb: {MISSING: 0.6, INCONSISTENT: NOTHING},
    }
    assert m[ha]["threshold"] == m["thresholds_set_on"][hb]
    assert (m[ha]["audit"]["flagged"], m[ha]["audit"]["hits"]) == (1, 1)  # 0.4 left out
    assert (m[hb]["audit"]["flagged"], m[hb]["audit"]["hits"]) == (0, 0)  # 0.6 < 0.9
    assert m["held-out"]["audit"]["recall"] == 0.3333  # 1 of 3 (rounded)
    assert m["held-out"]["audit_by_kind"][MISSING]["recall"] == 0.5
    assert m["held-out"]["checkers"]["Tasi"]["hits"] == 1
    assert m["held-out"]["checkers"]["Tasi"]["recall_by_kind"] == {MISSING: 0.5, INCONSISTENT: 0.0}
