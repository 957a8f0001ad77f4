"""`audit` end to end on small written workbooks: exact cell, kind, fix and evidence."""

from __future__ import annotations

import pytest

from fortap.audit.auditor import Audit, AuditConfig, audit
from fortap.audit.findings import INCONSISTENT, MISSING
from fortap.audit.score import load_weights
from fortap.errors import FortapError
from fortap.suggest.engine import Suggester

from .books import SALES, clean, odd_formula, short_range, typed_total


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("audit")


def test_typed_total_is_a_missing_formula(folder):
    done = audit(Suggester.open(typed_total(folder / "t.xlsx")))
    assert isinstance(done, Audit) and (done.typed, done.formulas) == (11, 7)
    (f,) = done.findings
    assert (f.sheet, f.a1, f.kind, f.fix) == ("Sales", "D4", MISSING, "=B4+C4")
    assert f.evidence == (
        "D4 holds 310 typed by hand; =B4+C4 gives 310; 4 of the other 5 cells of its column "
        "run D2:D7 are formulas: missing formula"
    )
    assert dict(f.facts)["fix_equal"] == 1.0 and f.score > 0.95
    assert f.score == load_weights().score(MISSING, dict(f.facts))


def test_shifted_reference_is_inconsistent(folder):
    (f,) = audit(Suggester.open(odd_formula(folder / "o.xlsx"))).findings
    assert (f.sheet, f.a1, f.kind, f.fix) == ("Prices", "C5", INCONSISTENT, "=A5*B5")
    assert f.evidence.startswith("C5: =A5*B4 breaks the column block C2:C7")
    assert f.evidence.endswith("expected =A5*B5 (gives 21, the cell shows 3.5)")
    assert dict(f.facts) == {"block_share": 5 / 6, "interior": 1.0, "odd": 1.0, "run_cells": 6.0,
                             "slip": 5 / 6, "dropped": 0.0, "fix_differs": 1.0}  # fmt: skip
    assert f.score == load_weights().score(INCONSISTENT, dict(f.facts))


def test_short_range_is_inconsistent(folder):
    found = audit(Suggester.open(short_range(folder / "s.xlsx"))).findings
    assert [(f.a1, f.kind, f.fix) for f in found] == [("E4", INCONSISTENT, "=SUM(B4:D4)")]


def test_totals_reaching_past_or_stopping_short_of_their_numbers(folder):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Funds"
    ws.append(["Source", "State", "Federal"])
    ws.append(["Revenue:", None, None])
    for row in (["Grants", 120, 40], ["Fees", 80, 10], ["Other", 5, 2]):
        ws.append(row)
    # B6 adds the empty B2 and leaves out B5's 5 typed below its range; C6 adds C3:C5 only
    ws.append(["Total", "=SUM(B2:B4)", "=SUM(C3:C5)"])
    wb.save(folder / "f.xlsx")
    (f,) = audit(Suggester.open(folder / "f.xlsx")).findings
    assert (f.a1, f.kind, f.fix) == ("B6", INCONSISTENT, "=SUM(B3:B5)")
    assert f.evidence == (
        "B6: =SUM(B2:B4) leaves out the 1 number below its range and reaches past its numbers "
        "into empty cells (B2): a range stopping short and reaching past its numbers; expected "
        "=SUM(B3:B5)"
    )
    assert dict(f.facts) == {"stops_short": 0.0, "short_below": 1.0, "left_out": 1.0,
                             "blank_ends": 1.0}  # fmt: skip


def test_a_defined_name_in_the_block_is_no_term_left_out(folder):
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Calc"
    ws.append(["Qty", "Rate", "Amount"])
    ws["E1"] = 1.1
    for r in range(2, 8):
        ws.append([r, None, "=A4" if r == 4 else f"=A{r}*Rate"])
    wb.defined_names["Rate"] = DefinedName("Rate", attr_text="Calc!$E$1")
    wb.save(folder / "n.xlsx")
    # C4 reads A4 where its block reads A4 and the name: no box to name the term by
    assert [f.a1 for f in audit(Suggester.open(folder / "n.xlsx")).findings] == []


def test_clean_sheet_has_no_finding(folder):
    assert audit(Suggester.open(clean(folder / "c.xlsx"))).findings == []


def test_the_structure_previews_the_fix_without_the_engine(folder):
    sg = Suggester.open(typed_total(folder / "t0.xlsx"))
    done = audit(sg, cfg=AuditConfig(max_checks=0, min_score=0.0))
    assert done.checked == 0
    (f,) = [f for f in done.findings if f.a1 == "D4"]
    facts = dict(f.facts)
    assert facts["fix_equal"] == 1.0 and facts["checked"] == 0.0 and f.fix == "=B4+C4"


def test_an_engine_match_copied_from_a_block_says_how_large_the_block_is(folder):
    import math

    from fortap.audit import evidence

    sg = Suggester.open(typed_total(folder / "t2.xlsx"))
    match = evidence.candidates(sg, "Sales", (3, 3), 310.0, "General", 3)
    assert (match.rank, match.formula, match.source) == (1, "=B4+C4", "copy")
    assert match.block == math.log1p(4)  # D2, D3, D5, D6 hold it: D4 itself is hidden


def test_only_a_copy_match_writes_its_block(folder):
    import math

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Q1", "Q2", "Total"])
    for i, (region, q1, q2) in enumerate(SALES[:3], start=2):
        ws.append([region, q1, q2, f"=B{i}+C{i}"])
    ws.append([None])
    ws.append(["West", 70, 60, 130])  # D6 typed, a blank row below the block D2:D4
    wb.save(folder / "gap.xlsx")
    done = audit(Suggester.open(folder / "gap.xlsx"), cfg=AuditConfig(min_score=0.0))
    facts = {f.a1: dict(f.facts) for f in done.findings}
    assert facts["D6"]["match_copy"] == 1.0 and facts["D6"]["copy_block"] == math.log1p(3)
    others = [a for a, x in facts.items() if a != "D6" and any(k.startswith("match_") for k in x)]
    assert others and all("copy_block" not in facts[a] for a in others)  # another source's match


def test_counts_say_what_scored_each_typed_number(folder):
    # D4 stands in a run with formulas, and its fix gives its value: the structure settles it,
    # and the engine's budget goes to the other ten typed numbers, in order; every number is
    # scored, those the engine does not check by the structure alone
    sg = Suggester.open(typed_total(folder / "t1.xlsx"))
    counts = ("scored_by_structure", "scored_by_engine")
    for checks, want in ((0, (11, 0)), (1, (10, 1)), (2, (9, 2)), (300, (1, 10))):
        doc = audit(sg, cfg=AuditConfig(max_checks=checks)).to_json()
        assert tuple(doc[k] for k in counts) == want
        assert doc["typed_numbers"] == sum(want) and doc["checked"] == doc["scored_by_engine"]
        assert doc["planned_checks"] == min(checks, 10)


def test_bad_config_and_sheet(folder):
    with pytest.raises(FortapError, match="min_score"):
        AuditConfig(min_score=2.0)
    with pytest.raises(FortapError, match="no sheet"):
        audit(Suggester.open(clean(folder / "c2.xlsx")), ["Nope"])
