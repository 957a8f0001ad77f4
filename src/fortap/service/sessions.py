"""One upload becomes a session: `open_session` opens it with the engine, `describe` shows it.

The description is what `POST /workbooks` answers: the id, each sheet's used range and the
tables fortap detects in it (`fortap.table.detect_tables`), and what the .xlsx download will
not keep.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fortap.errors import FortapError, SheetError
from fortap.service.http_errors import UnknownSheet
from fortap.service.store import OpenBook
from fortap.sheet.export import not_kept
from fortap.sheet.model import Region, Sheet


def open_session(
    open_book: Callable[[Path], Any], book_id: str, name: str, suffix: str, path: Path, size: int
) -> OpenBook:
    """Open the saved upload with the engine; its errors name the upload, not the stored file."""
    try:
        suggester = open_book(path)
    except FortapError as err:
        raise renamed(err, path.name, Path(name).name or "the upload") from None
    workbook = suggester.workbook
    info = {
        "sheets": [_sheet_info(s) for s in workbook.sheets],
        "not_kept": not_kept(path, workbook),
    }
    return OpenBook(
        id=book_id,
        name=Path(name).name[:200],
        suffix=suffix,
        path=path,
        size=size,
        suggester=suggester,
        info=info,
    )


def renamed(err: FortapError, stored: str, shown: str) -> FortapError:
    """The same error with the stored file's name (upload.xlsx) replaced by the user's."""
    text = str(err)
    if stored not in text:
        return err
    text = text.replace(stored, shown)
    if isinstance(err, SheetError):
        return SheetError(err.reason, text)
    return FortapError(text)


def session_sheet(book: OpenBook, sheet: str) -> Sheet:
    """The session's sheet of this name, as the engine holds it now; `UnknownSheet` naming the
    sheets there are."""
    for model in book.model().sheets:
        if model.name == sheet:
            return model
    names = ", ".join(repr(s.name) for s in book.model().sheets)
    raise UnknownSheet(f"no sheet {sheet[:40]!r} in {book.name!r} (its sheets: {names})")


@contextmanager
def user_names(book: OpenBook) -> Iterator[None]:
    """Engine errors name the upload as the user called it, not the stored file."""
    try:
        yield
    except FortapError as err:
        raise renamed(err, book.path.name, book.name or "the upload") from None


def describe(book: OpenBook) -> dict[str, Any]:
    return {
        "id": book.id,
        "name": book.name,
        "size": book.size,
        "sheets": book.info["sheets"],
        "not_kept": book.info["not_kept"],
        "accepted": [
            {"sheet": sheet, "cell": cell, "formula": formula}
            for (sheet, cell), formula in book.accepted.items()
        ],
    }


def _sheet_info(sheet: Sheet) -> dict[str, Any]:
    from fortap.table import detect_tables

    used = Region(0, 0, max(sheet.n_rows - 1, 0), max(sheet.n_cols - 1, 0))
    tables = [
        {
            "range": t.region.a1,
            "header_rows": t.top_header_rows,
            "header_cols": t.left_header_cols,
        }
        for t in detect_tables(sheet)
    ]
    return {
        "name": sheet.name,
        "n_rows": sheet.n_rows,
        "n_cols": sheet.n_cols,
        "used_range": used.a1,
        "tables": tables,
    }
