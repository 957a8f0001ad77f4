"""`read_workbook`: any supported spreadsheet file -> `Workbook`, or a `SheetError` saying why not.

The route is chosen by `screening.screen` from the file's real content: .xlsx/.xlsm go to the
openpyxl-based reader, .xls/.ods through LibreOffice to .xlsx first, .csv/.tsv to the
delimited-text reader. `read_workbooks` does the same for many files, converting the
.xls/.ods among them in a few LibreOffice calls instead of one per file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from fortap.errors import SheetError
from fortap.sheet.biff import census
from fortap.sheet.convert import convert_to_xlsx, soffice_missing
from fortap.sheet.delimited import read_delimited
from fortap.sheet.limits import ReadLimits
from fortap.sheet.model import Workbook
from fortap.sheet.screening import screen
from fortap.sheet.xlsx import read_xlsx

DEFAULT_LIMITS = ReadLimits()


def read_workbook(
    path: str | Path, limits: ReadLimits = DEFAULT_LIMITS, cache_dir: Path | None = None
) -> Workbook:
    """Read every worksheet of `path`. `cache_dir` holds LibreOffice conversions (.xls/.ods)."""
    path = Path(path)
    route = screen(path, limits)
    if route == "convert":
        converted = convert_to_xlsx([path], limits, cache_dir)[path]
        if isinstance(converted, SheetError):
            raise converted
        return _from_converted(path, converted, limits)
    if route == "delimited":
        return _non_empty(Workbook(str(path), (read_delimited(path, limits),)))
    sheets, skipped = read_xlsx(path, limits)
    return _non_empty(Workbook(str(path), sheets, skipped_sheets=skipped))


def read_workbooks(
    paths: Iterable[str | Path], limits: ReadLimits = DEFAULT_LIMITS, cache_dir: Path | None = None
) -> Iterator[tuple[Path, Workbook | SheetError]]:
    """Each path with its `Workbook` or the `SheetError` that stopped it, in the given order.

    Files needing LibreOffice are screened and converted up front, in batches.
    """
    paths = [Path(p) for p in paths]
    routes: dict[Path, str | SheetError] = {}
    for path in paths:
        try:
            routes[path] = screen(path, limits)
        except SheetError as err:
            routes[path] = err
    to_convert = [p for p in dict.fromkeys(paths) if routes[p] == "convert"]
    converted: dict[Path, Path | SheetError] = {}
    if to_convert:
        try:
            converted = convert_to_xlsx(to_convert, limits, cache_dir)
        except SheetError:  # soffice missing: every such file fails the same way
            converted = {p: soffice_missing(p) for p in to_convert}
    for path in paths:
        route = routes[path]
        if isinstance(route, SheetError):
            yield path, route
            continue
        try:
            if route == "convert":
                target = converted[path]
                if isinstance(target, SheetError):
                    raise target
                yield path, _from_converted(path, target, limits)
            else:
                yield path, read_workbook(path, limits, cache_dir)
        except SheetError as err:
            yield path, err


def _from_converted(original: Path, converted: Path, limits: ReadLimits) -> Workbook:
    sheets, skipped = read_xlsx(
        converted, limits, converted_from=str(original), census=census(original)
    )
    return _non_empty(
        Workbook(str(converted), sheets, converted_from=str(original), skipped_sheets=skipped)
    )


def _non_empty(book: Workbook) -> Workbook:
    """`book` unchanged, unless no sheet holds a single value or formula."""
    for sheet in book.sheets:
        if any(not cell.is_empty for cell in sheet.cells.values()):
            return book
    origin = book.converted_from or book.path
    raise SheetError("empty_workbook", "workbook has no cells with a value or formula", origin)
