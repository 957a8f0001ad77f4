"""Read an .xlsx/.xlsm file into our `Sheet`s in one pass over each sheet's XML.

openpyxl either gives a formula cell's formula (the default) or its cached value
(`data_only=True`), never both; two loads would double the cost. So we reuse openpyxl's
package, string and style readers and its row parser, and hook the one method that reads a
cell (`WorkSheetParser.parse_cell`) to keep the `<v>` cached value of formula cells too.
We then build our frozen `Cell`s straight from the parsed rows, skipping openpyxl's own cell
objects, comments, drawings and pivot tables, which fortap never looks at.
"""

from __future__ import annotations

import warnings
import zipfile
import zlib
from dataclasses import replace
from pathlib import Path
from xml.etree.ElementTree import ParseError

from defusedxml import DefusedXmlException
from openpyxl.reader.excel import ExcelReader
from openpyxl.utils import column_index_from_string, range_boundaries
from openpyxl.worksheet._reader import VALUE_TAG, WorkSheetParser

from fortap.errors import SheetError
from fortap.sheet.biff import BiffCensus
from fortap.sheet.cells import CellConverter
from fortap.sheet.limits import ReadLimits
from fortap.sheet.model import Cell, Region, Sheet
from fortap.sheet.sheet_part import check_sheet_part
from fortap.sheet.styles import StyleTable, load_cell_styles
from fortap.sheet.tables import read_tables


class _CachedValueParser(WorkSheetParser):
    """openpyxl's sheet parser, also keeping the cached `<v>` text and type of formula cells."""

    def parse_cell(self, element):
        parsed = super().parse_cell(element)
        if parsed["data_type"] == "f":
            parsed["cached"] = element.findtext(VALUE_TAG)
            parsed["cached_type"] = element.get("t", "n")
        return parsed


def read_xlsx(
    path: Path,
    limits: ReadLimits,
    *,
    converted_from: str | None = None,
    census: BiffCensus | None = None,
) -> tuple[tuple[Sheet, ...], tuple[tuple[str, str], ...]]:
    """Every worksheet of an OOXML workbook, and the (sheet, reason) pairs that were skipped.

    `converted_from` marks a file LibreOffice produced, whose artefact formulas are dropped;
    `census` (the original .xls's formula cells and chart sheets) makes that exact.
    `converted_from` is also the file named in messages and in `Sheet.book`.
    """
    book = converted_from or str(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about every extension it drops
            return _read(path, book, limits, converted_from is not None, census)
    except SheetError:
        raise
    except DefusedXmlException as err:
        raise SheetError("xml_bomb", f"unsafe XML refused ({type(err).__name__})", book) from None
    except (zipfile.BadZipFile, zlib.error, EOFError) as err:
        raise SheetError("corrupt_zip", f"corrupt or truncated zip archive ({err})", book) from None
    except Exception as err:  # openpyxl wraps most failures in ValueError; keep the cause's name
        cause = err.__cause__ or err
        if isinstance(cause, DefusedXmlException):
            raise SheetError(
                "xml_bomb", f"unsafe XML refused ({type(cause).__name__})", book
            ) from None
        if isinstance(cause, ParseError):
            raise SheetError(
                "corrupt_xml", f"malformed XML inside the workbook ({cause})", book
            ) from None
        raise SheetError(
            "unreadable", f"openpyxl could not read it ({type(cause).__name__}: {cause})", book
        ) from None


_NO_WORKBOOK = "zip archive holds no Excel workbook part"


def _read(path: Path, book: str, limits: ReadLimits, converted: bool, census: BiffCensus | None):
    reader = ExcelReader(str(path), read_only=False, keep_vba=False, keep_links=False)
    sheets: list[Sheet] = []
    skipped: list[tuple[str, str]] = []
    try:
        try:
            reader.read_manifest()
            reader.read_strings()
            reader.read_workbook()
        except KeyError:  # no [Content_Types].xml or no workbook.xml: some other zip
            raise SheetError("not_a_spreadsheet", _NO_WORKBOOK, book) from None
        except OSError as err:
            if "workbook part" not in str(err):
                raise
            raise SheetError("not_a_spreadsheet", _NO_WORKBOOK, book) from None
        load_cell_styles(reader.archive, reader.wb)
        styles = StyleTable(reader.wb)
        for entry, rel in reader.parser.find_sheets():
            if rel.target not in reader.valid_files:
                skipped.append((entry.name, "missing_part"))
            elif "chartsheet" in rel.Type:
                skipped.append((entry.name, "chartsheet"))
            elif census is not None and entry.name in census.not_worksheets:
                skipped.append((entry.name, census.not_worksheets[entry.name]))
            else:
                original = census.sheet_formulas(entry.name) if census is not None else None
                convert = CellConverter(styles, reader.wb, converted, original)
                check_sheet_part(reader.archive, rel.target, limits, book, entry.name)
                with reader.archive.open(rel.target) as src:
                    sheet = _read_sheet(src, entry.name, book, reader, convert, limits)
                tables = read_tables(reader.archive, rel.target, convert.table_ids)
                sheets.append(replace(sheet, tables=tables, arrays=tuple(convert.arrays)))
    finally:
        reader.archive.close()
    return tuple(sheets), tuple(skipped)


def _read_sheet(src, name, book, reader, convert, limits) -> Sheet:
    wb = reader.wb
    parser = _CachedValueParser(
        src, reader.shared_strings, False, wb.epoch, wb._date_formats, wb._timedelta_formats
    )
    cells: dict[tuple[int, int], Cell] = {}
    n_rows = n_cols = 0
    for row, parsed_cells in parser.parse():
        if row > limits.max_rows:
            raise _too_large(
                book, name, f"row {row:,} is past the limit of {limits.max_rows:,} rows"
            )
        for parsed in parsed_cells:
            cell = convert(parsed)
            if cell is None:
                continue
            col = parsed["column"]
            if col > limits.max_cols:
                raise _too_large(
                    book, name, f"column {col:,} is past the limit of {limits.max_cols:,} columns"
                )
            cells[(parsed["row"] - 1, col - 1)] = cell
            if not cell.is_empty:
                n_rows = max(n_rows, parsed["row"])
                n_cols = max(n_cols, col)
        if len(cells) > limits.max_cells:
            raise _too_large(
                book, name, f"more than {limits.max_cells:,} cells, the configured limit"
            )
    convert.table_ids = [t.id for t in parser.tables.tablePart]
    # Formatting often runs far past the data (whole columns bordered, 8,192 shaded rows):
    # the box is that of values and formulas, and styled empty cells outside it are dropped.
    cells = {rc: cell for rc, cell in cells.items() if rc[0] < n_rows and rc[1] < n_cols}
    return Sheet(
        name=name,
        book=book,
        n_rows=n_rows,
        n_cols=n_cols,
        cells=cells,
        merged=_merged(parser, n_rows, n_cols),
        hidden_rows=_hidden_rows(parser, n_rows),
        hidden_cols=_hidden_cols(parser, n_cols),
    )


def _too_large(book: str, sheet: str, detail: str) -> SheetError:
    return SheetError("sheet_too_large", f"sheet {sheet!r} is too large: {detail}", book, sheet)


def _merged(parser: WorkSheetParser, n_rows: int, n_cols: int) -> tuple[Region, ...]:
    """Merged ranges whose top-left cell lies in the used box, clipped to it."""
    if not parser.merged_cells:
        return ()
    regions = set()
    for merge in parser.merged_cells.mergeCell:
        try:
            left, top, right, bottom = range_boundaries(merge.ref)
        except (TypeError, ValueError):
            continue  # a damaged ref: Excel itself drops it
        if None in (left, top, right, bottom) or top > n_rows or left > n_cols:
            continue
        regions.add(Region(top - 1, left - 1, min(bottom, n_rows) - 1, min(right, n_cols) - 1))
    return tuple(sorted(regions))


def _is_true(flag) -> bool:
    return str(flag).strip().lower() in ("1", "true")


def _hidden_rows(parser: WorkSheetParser, n_rows: int) -> frozenset[int]:
    return frozenset(
        int(r) - 1
        for r, attrs in parser.row_dimensions.items()
        if _is_true(attrs.get("hidden")) and int(r) <= n_rows
    )


def _hidden_cols(parser: WorkSheetParser, n_cols: int) -> frozenset[int]:
    hidden: set[int] = set()
    for letter, attrs in parser.column_dimensions.items():
        if not _is_true(attrs.get("hidden")):
            continue
        first = int(attrs.get("min") or column_index_from_string(letter))
        last = min(int(attrs.get("max") or first), n_cols)
        hidden.update(range(first - 1, last))
    return frozenset(hidden)
