"""A sheet's findings are the same whether it is audited alone (`fortap audit --sheet S`) or
with the rest of its workbook: the engine's checks are granted over the whole book first."""

from __future__ import annotations

import pytest

from fortap.audit.auditor import AuditConfig, audit
from fortap.errors import FortapError
from fortap.suggest.api import native_stderr_silenced, open_book

BOOK = "euses_excelint/subjects_xlsx/joan-hasmanyIFs.xlsx"  # "fall" asks the engine 45 times


def _on(found, sheet: str) -> set:
    return {(f.row, f.col, f.kind, round(f.score, 9), f.fix) for f in found if f.sheet == sheet}


def test_one_sheet_gives_the_whole_books_findings_on_it(data_dir):
    with native_stderr_silenced():
        sg = open_book(data_dir / BOOK)
    cfg = AuditConfig(max_checks=10)  # a budget the book's other sheets share
    whole = audit(sg, None, cfg)
    alone = audit(sg, ["fall"], cfg)
    assert _on(alone.findings, "fall") == _on(whole.findings, "fall")
    assert {f.sheet for f in alone.findings} <= {"fall"}
    assert 0 < alone.planned < min(cfg.max_checks, 45)  # the book's grant to it, not 10 of its own
    with pytest.raises(FortapError, match="no sheet 'nope'"):
        audit(sg, ["nope"], cfg)
