"""The user's cell argument: `B7`, `Sheet1!B7` or `'My Sheet'!B7` -> sheet name and 0-based cell.

`parse_cell` only reads the text; `locate` also checks it against the workbook: the sheet must
exist (matched exactly, else ignoring case) and the cell must lie in the sheet's used range or
one row / one column beyond it (where the next total or the next filled-down cell goes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from fortap.errors import FortapError, where
from fortap.formula.references import parse_address
from fortap.sheet.model import Sheet, a1

_A1 = re.compile(r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})")
_USAGE = "expected A1 text such as B7, Sheet1!B7 or 'My Sheet'!B7"


class CellError(FortapError):
    """A cell argument that is malformed, names an unknown sheet or lies outside the sheet."""


@dataclass(frozen=True)
class CellArg:
    """A parsed cell argument: the sheet it names (None = not given) and the 0-based cell."""

    sheet: str | None
    row: int
    col: int

    @property
    def a1(self) -> str:
        return a1(self.row, self.col)


def parse_cell(text: str, book: str | None = None) -> CellArg:
    """`'My Sheet'!$B$7` -> CellArg("My Sheet", 6, 1); `CellError` for anything else."""
    raw = text.strip()
    sheet, ref = None, raw
    if "!" in raw:
        sheet, ref = _split_sheet(raw, book)
    if _A1.fullmatch(ref) is None:
        raise CellError(f"malformed cell reference {text[:60]!r}: {_USAGE} ({where(book)})")
    found = parse_address(ref)  # None past row 1048576 or column XFD, or at row 0
    if found is None:
        raise CellError(
            f"malformed cell reference {text[:60]!r}: rows run from 1 to 1048576 and "
            f"columns from A to XFD ({where(book)})"
        )
    return CellArg(sheet, found[0].row, found[0].col)


def locate(arg: CellArg, sheet_option: str | None, sheets: Sequence[Sheet], book: str) -> Sheet:
    """The sheet `arg` names (or `--sheet`, or the first sheet), checked to hold the cell."""
    if arg.sheet is not None and sheet_option and arg.sheet.casefold() != sheet_option.casefold():
        raise CellError(
            f"the cell names sheet {arg.sheet!r} but --sheet says {sheet_option!r} ({where(book)})"
        )
    name = arg.sheet or sheet_option or sheets[0].name
    sheet = find_sheet(name, sheets, book)
    if arg.row > sheet.n_rows or arg.col > sheet.n_cols:
        used = (
            "empty"
            if sheet.n_rows == 0
            else "used range A1:" + a1(sheet.n_rows - 1, sheet.n_cols - 1)
        )
        raise CellError(
            f"cell {arg.a1} is outside sheet {sheet.name!r} ({used}; suggestions go at most one "
            f"row or column beyond it) ({where(book)})"
        )
    return sheet


def find_sheet(name: str, sheets: Sequence[Sheet], book: str) -> Sheet:
    """The sheet called `name` (exact match first, then ignoring case), else `CellError`."""
    for sheet in sheets:
        if sheet.name == name:
            return sheet
    for sheet in sheets:
        if sheet.name.casefold() == name.casefold():
            return sheet
    names = ", ".join(repr(s.name) for s in sheets[:12]) + (", ..." if len(sheets) > 12 else "")
    raise CellError(f"no sheet {name!r} in {where(book)} (sheets: {names})")


def _split_sheet(raw: str, book: str | None) -> tuple[str, str]:
    """`'It''s'!B7` -> ("It's", "B7"); `Data!B7` -> ("Data", "B7")."""
    if raw.startswith("'"):
        end = raw.find("'!", 1)
        while end != -1 and raw[1:end].replace("''", "").count("'"):
            end = raw.find("'!", end + 1)
        if end > 1:
            return raw[1:end].replace("''", "'"), raw[end + 2 :]
    else:
        sheet, _, ref = raw.rpartition("!")
        if sheet and not any(ch in sheet for ch in "'[]*?/\\:"):
            return sheet, ref
    raise CellError(f"malformed cell reference {raw[:60]!r}: {_USAGE} ({where(book)})")
