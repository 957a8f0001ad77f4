"""Errors that name the input: the file, and the sheet and cell where one applies.

Every error a user can cause derives from `FortapError`; its message is one line that a person
can act on, never a traceback from deep inside a library.
"""

from __future__ import annotations

from pathlib import Path

ECHO = 200  # characters of a user's input an error message quotes at most


def echo(text: str, limit: int = ECHO) -> str:
    """`text` quoted for a message: whole when short, else its first `limit` characters and how
    many more there were (an 8,000-character formula is not worth reading back)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text) - limit:,} more characters)"


class FortapError(Exception):
    """Base of every error caused by input (files, formulas, configs, checkpoints)."""


def where(path: str | Path | None = None, sheet: str | None = None, cell: str | None = None) -> str:
    """`Sheet1!D7 of budget.xlsx` style location text; empty when nothing is known."""
    name = Path(path).name if path is not None else None
    loc = f"{sheet}!{cell}" if sheet and cell else (sheet or cell)
    if loc and name:
        return f"{loc} of {name}"
    return loc or name or ""


class SheetError(FortapError):
    """A workbook could not be read (corrupt, encrypted, not a spreadsheet, too large, ...).

    `reason` is a short stable key (e.g. ``encrypted``, ``corrupt_zip``) used in reports;
    the message is the human sentence.
    """

    def __init__(
        self,
        reason: str,
        message: str,
        path: str | Path | None = None,
        sheet: str | None = None,
        cell: str | None = None,
    ) -> None:
        self.reason = reason
        self.path = str(path) if path is not None else None
        self.sheet = sheet
        self.cell = cell
        loc = where(path, sheet, cell)
        super().__init__(f"{message} ({loc})" if loc else message)


class FormulaError(FortapError):
    """A formula that does not parse: the text, the position and the reason."""

    def __init__(
        self,
        text: str,
        reason: str,
        position: int | None = None,
        path: str | Path | None = None,
        sheet: str | None = None,
        cell: str | None = None,
    ) -> None:
        self.text = text
        self.reason = reason
        self.position = position
        at = f" at {position}" if position is not None else ""
        loc = where(path, sheet, cell)
        super().__init__(f"{reason}{at} in {echo(text)}" + (f" ({loc})" if loc else ""))


class CheckpointError(FortapError):
    """A checkpoint or config that cannot be loaded; names the file and the tensor or key."""
