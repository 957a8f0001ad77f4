"""`fortap audit` prints a cell of a sheet whose name needs quotes as Excel writes it."""

from __future__ import annotations

from pathlib import Path

from fortap.audit.cli import _print
from fortap.audit.findings import KINDS, Finding


def test_a_sheet_name_with_spaces_is_quoted(capsys):
    found = [Finding("Power (W)", 42, 4, KINDS[0], 0.9, "evidence", "=SUM(E30:E42)"),
             Finding("Sheet1", 1, 1, KINDS[0], 0.8, "evidence", None)]  # fmt: skip
    _print(found, Path("book.xlsx"), top=0)
    out = capsys.readouterr().out
    assert "'Power (W)'!E43" in out and "Sheet1!B2" in out
