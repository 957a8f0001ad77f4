"""A formula that differs from its block in a part other than a reference (`differences`,
`inconsistent.breaks`, the `breaks` check with `checks.differs`): one literal sheet per kind."""

from __future__ import annotations

import openpyxl

from fortap.audit.auditor import AuditConfig, audit
from fortap.audit.differences import ANCHORING, CONSTANT, FUNCTION, OTHER_CONSTANT
from fortap.audit.findings import INCONSISTENT
from fortap.audit.inconsistent import breaks
from fortap.suggest.engine import Suggester

from .grids import sheet_context


def _column(formula, odd_row: int, odd: str, rows=range(2, 8)) -> list[list]:
    """A | B | C headed, numbers in A and B, C holding `formula` (rows as `{r}`) but `odd`."""
    grid = [["a", "b", "c"]]
    for r in rows:
        grid.append([r, 0.5 * r, odd if r == odd_row else formula.format(r=r)])
    return grid


def test_one_average_among_sums_is_another_function():
    (b,) = breaks(sheet_context(_column("=SUM(A{r}:B{r})", 4, "=AVERAGE(A4:B4)")))
    assert (b.cell, b.differs, b.fix, b.interior) == ((3, 2), FUNCTION, "=SUM(A4:B4)", True)
    assert [(p.own, p.block) for p in b.parts] == [("AVERAGE", "SUM")]
    assert (b.block_cells, b.odd) == (5, 1)


def test_another_operator_is_another_function():
    (b,) = breaks(sheet_context(_column("=A{r}+B{r}", 5, "=A5-B5")))
    assert (b.cell, b.differs, b.fix) == ((4, 2), FUNCTION, "=A5+B5")
    assert b.detail == "- where its block uses +"


def test_a_constant_where_the_block_reads_a_cell():
    (b,) = breaks(sheet_context(_column("=A{r}*B{r}", 4, "=A4*2")))
    assert (b.cell, b.differs, b.fix, b.dropped) == ((3, 2), CONSTANT, "=A4*B4", False)
    assert [(p.own, p.block) for p in b.parts] == [("2", "B4")]


def test_another_constant_where_the_block_has_one():
    (b,) = breaks(sheet_context(_column("=A{r}*1.1", 4, "=A4*1.2")))
    assert (b.cell, b.differs, b.fix) == ((3, 2), OTHER_CONSTANT, "=A4*1.1")


def test_a_reference_anchored_otherwise_breaks_its_block():
    (b,) = breaks(sheet_context(_column("=A{r}*B{r}", 4, "=A$4*B4")))
    assert (b.cell, b.differs, b.fix, b.by_one) == ((3, 2), ANCHORING, "=A4*B4", False)
    assert [(p.own, p.block) for p in b.parts] == [("A$4", "A4")]


def test_two_parts_differing_are_another_computation():
    assert breaks(sheet_context(_column("=A{r}+1", 4, "=A4*2"))) == []


def _book(path, odd: str, formula: str = "=SUM(B{r}:C{r})"):
    """Sheet S: D4:D16 hold `formula` (rows as `{r}`), adding B and C of their row, but D9
    holds `odd`."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws.append(["Costs"])
    ws.append([])
    ws.append(["Item", "Q1", "Q2", "Sum"])
    for r in range(4, 17):
        ws.append([f"item {r}", r, 2 * r + 1, odd if r == 9 else formula.format(r=r)])
    wb.save(path)
    return path


def test_the_audit_names_the_function_and_its_block(tmp_path):
    done = audit(Suggester.open(_book(tmp_path / "f.xlsx", "=AVERAGE(B9:C9)")),
                 cfg=AuditConfig(min_score=0.0))  # fmt: skip
    (f,) = [f for f in done.findings if f.kind == INCONSISTENT]
    assert (f.a1, f.fix) == ("D9", "=SUM(B9:C9)")
    assert f.evidence == ("D9: =AVERAGE(B9:C9): AVERAGE where the 12 other cells of the column "
                          "D4:D16 use SUM; expected =SUM(B9:C9) (gives 28, the cell shows 14)")
    assert dict(f.facts) == {"block_share": 12 / 13, "interior": 1.0, "odd": 1.0,
                             "run_cells": 13.0, "slip": 0.0, "dropped": 0.0,
                             "other_function": 1.0, "fix_differs": 1.0}  # fmt: skip


def test_the_audit_says_a_constant_is_the_value_it_replaced(tmp_path):
    book = _book(tmp_path / "c.xlsx", "=B9+19", "=B{r}+C{r}")  # C9 holds 19
    (f,) = [f for f in audit(Suggester.open(book), cfg=AuditConfig(min_score=0.0)).findings
            if f.kind == INCONSISTENT]  # fmt: skip
    assert (f.a1, f.fix) == ("D9", "=B9+C9")
    assert f.evidence == ("D9: =B9+19: the constant 19 where the 12 other cells of the column "
                          "D4:D16 read C9, which holds 19; expected =B9+C9")
    assert dict(f.facts) == {"block_share": 12 / 13, "interior": 1.0, "odd": 1.0,
                             "run_cells": 13.0, "slip": 0.0, "dropped": 0.0,
                             "constant_for_ref": 1.0, "constant_is_value": 1.0,
                             "fix_differs": 0.0}  # fmt: skip


def test_the_audit_finds_a_latent_anchoring(tmp_path):
    book = _book(tmp_path / "a.xlsx", "=B$9+C9", "=B{r}+C{r}")
    (f,) = [f for f in audit(Suggester.open(book), cfg=AuditConfig(min_score=0.0)).findings
            if f.kind == INCONSISTENT]  # fmt: skip
    assert (f.a1, f.fix, dict(f.facts)["anchoring"]) == ("D9", "=B9+C9", 1.0)
    assert "B$9 where the 12 other cells of the column D4:D16 read B9" in f.evidence
