"""Judge one worksheet's XML part before its cells are parsed.

openpyxl parses a sheet cell by cell into Python objects, so a small file that declares millions
of cells (a "cell bomb": 4 M cells compress into a few hundred KB) would take minutes and
gigabytes before the cell cap in `ReadLimits.max_cells` could fire. `check_sheet_part` refuses
it first, from what is cheap to know: the part's declared size and compression ratio in the
zip directory, the `<dimension>` the sheet declares, and, when the part is large enough to hold
more cells than the cap allows, a count of its `<c>` elements over the decompressed bytes
(a byte search, no XML parsing, constant memory). `content_cells` counts each worksheet's cells
with a value or a formula the same way, before anything is parsed, for a command that refuses
sheets past its own bound (`fortap cell-types`).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

from fortap.errors import SheetError
from fortap.sheet.limits import ReadLimits

MIN_CELL_BYTES = 4  # the shortest cell element, `<c/>`
_DIMENSION = re.compile(
    rb"<(?:\w+:)?dimension\s+ref=\"([A-Z]{1,3})?(\d+)?(?::([A-Z]{1,3})(\d+))?\""
)
_ROOT_PREFIX = re.compile(rb"<(\w+:)?worksheet[\s>]")
_CHUNK = 1 << 20
_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def sheet_parts(z: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> the zip member holding its XML, in the workbook's order."""
    book = ElementTree.fromstring(z.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    target = {r.get("Id"): r.get("Target", "") for r in rels.iter(f"{_PKG_REL}Relationship")}
    out = {}
    for s in book.iter(f"{_MAIN}sheet"):
        t = target.get(s.get(f"{_REL}id"), "")
        out[s.get("name")] = t.lstrip("/") if t.startswith("/") else "xl/" + t
    return out


def content_cells(path: Path) -> dict[str, int]:
    """Sheet name -> its cells holding a value or a formula (`<v>`, `<f>` without a cached
    value is not counted, inline strings are), counted over the decompressed bytes without
    parsing; {} for a file that is not an .xlsx/.xlsm package (the reader judges those)."""
    try:
        with zipfile.ZipFile(path) as z:
            out = {}
            for name, part in sheet_parts(z).items():
                if part in z.namelist():
                    with z.open(part) as src:
                        head = src.read(4096)
                        out[name] = _count(head, src, (b"v>", b"is>"))
            return out
    except (OSError, zipfile.BadZipFile, KeyError, ElementTree.ParseError):
        return {}


def check_sheet_part(archive: zipfile.ZipFile, part: str, limits: ReadLimits, book: str,
                     sheet: str) -> None:  # fmt: skip
    """Raise `SheetError("sheet_too_large")` when the part holds more than the limits allow."""
    info = archive.getinfo(part)
    declared, packed = info.file_size, max(info.compress_size, 1)
    if declared > limits.max_sheet_bytes:
        _refuse(book, sheet, f"its XML part declares {declared:,} bytes, over the limit of "
                             f"{limits.max_sheet_bytes:,}")  # fmt: skip
    if declared >= limits.ratio_min_bytes and declared / packed > limits.max_sheet_ratio:
        _refuse(book, sheet, f"its XML part expands {declared / packed:,.0f}-fold, over the "
                             f"limit of {limits.max_sheet_ratio:,.0f} (real sheets: under 20)")  # fmt: skip
    with archive.open(info) as src:
        head = src.read(4096)
        _check_dimension(head, limits, book, sheet)
        if declared < limits.max_cells * MIN_CELL_BYTES:
            return  # too small to hold more cells than the cap
        cells = _count_cells(head, src)
    if cells > limits.max_cells:
        _refuse(book, sheet, f"more than {limits.max_cells:,} cells, the configured limit")


def _check_dimension(head: bytes, limits: ReadLimits, book: str, sheet: str) -> None:
    found = _DIMENSION.search(head)
    if found is None or found.group(4) is None:
        return
    rows, cols = int(found.group(4)), _column_number(found.group(3).decode())
    if rows > limits.max_rows:  # the same words as the parser's check, which it comes before
        _refuse(book, sheet, f"row {rows:,} is past the limit of {limits.max_rows:,} rows")
    if cols > limits.max_cols:
        _refuse(book, sheet, f"column {cols:,} is past the limit of {limits.max_cols:,} columns")


def _count_cells(head: bytes, src) -> int:
    """`<c` openings in the part (with the root's namespace prefix, if it has one): every cell,
    plus the few other elements whose names start with c (`<cols>`, `<cfRule>`), which a cap of
    millions of cells does not notice. Text never holds a raw `<`, so values cannot add any."""
    return _count(head, src, (b"c",))


def _count(head: bytes, src, names: tuple[bytes, ...]) -> int:
    """Openings `<` + the root's namespace prefix + each of `names`, over the part's bytes."""
    root = _ROOT_PREFIX.search(head)
    prefix = b"<" + ((root.group(1) or b"") if root else b"")
    patterns = [prefix + n for n in names]
    # a match cut by a chunk boundary is found in the next one: each pattern keeps the bytes
    # one shorter than itself, which cannot hold a whole match already counted
    count, tails, chunk = 0, [b""] * len(patterns), head
    while chunk:
        for i, p in enumerate(patterns):
            data = tails[i] + chunk
            count += data.count(p)
            tails[i] = data[-(len(p) - 1):]
        chunk = src.read(_CHUNK)
    return count


def _column_number(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n


def _refuse(book: str, sheet: str, detail: str) -> None:
    raise SheetError("sheet_too_large", f"sheet {sheet!r} is too large: {detail}", book, sheet)
