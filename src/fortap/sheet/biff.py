"""Which cells of a legacy .xls hold a formula, read from the BIFF records themselves.

LibreOffice's .xlsx export writes a formula on some constant cells: `=TRUE()`/`=FALSE()` or a
bare `=` on booleans and `=NA()` on `#N/A` error constants. Those formulas look exactly like
real ones in the converted file. The original .xls knows the truth: every formula cell has
a FORMULA record (shared and array formulas included). This module walks the record stream
far enough to list those cells per sheet; nothing else is decoded.

BIFF5/BIFF8 live in an OLE container (stream `Workbook` or `Book`); the workbook globals
list each sheet (BOUNDSHEET: stream offset, type, name) and each sheet is a BOF..EOF run of
records. BIFF2-4 files are a bare single-sheet record stream.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

import olefile

BOF_TYPES = frozenset({0x0009, 0x0209, 0x0409, 0x0809})
EOF = 0x000A
FORMULA_TYPES = frozenset({0x0006, 0x0206, 0x0406})  # BIFF5/8 and BIFF2, BIFF3, BIFF4
BOUNDSHEET = 0x0085
CODEPAGE = 0x0042
SHEET_TYPES = frozenset({0x00, 0x01})  # BOUNDSHEET types read: worksheet (and dialog), macro sheet
OTHER_SHEET_TYPES = {0x02: "chartsheet", 0x06: "vb_module"}  # LibreOffice turns these into
# empty worksheets; they are skipped like an .xlsx chartsheet
BIFF8 = 0x0600


@dataclass(frozen=True)
class BiffCensus:
    """What the original .xls says: formula cells per sheet, and sheets that hold no cells."""

    formulas: dict[str, frozenset[tuple[int, int]]]  # sheet name -> 0-based (row, col)
    not_worksheets: dict[str, str] = field(default_factory=dict)  # sheet name -> "chartsheet", ...

    def sheet_formulas(self, name: str) -> frozenset[tuple[int, int]] | None:
        """Formula cells of sheet `name`; a bare BIFF2-4 stream's single sheet matches any name."""
        if name in self.formulas:
            return self.formulas[name]
        if len(self.formulas) == 1 and "" in self.formulas:
            return self.formulas[""]
        return None


def census(path: Path) -> BiffCensus | None:
    """The formula cells of a BIFF .xls; None if `path` is not one (or is too damaged to walk)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(8)
        if head[:2] in (b"\x09\x00", b"\x09\x02", b"\x09\x04"):
            return BiffCensus({"": _formulas_from(path.read_bytes(), 0)})
        if not olefile.isOleFile(str(path)):
            return None
        with olefile.OleFileIO(str(path)) as ole:
            name = next((s for s in ("Workbook", "Book") if ole.exists(s)), None)
            if name is None:
                return None
            data = ole.openstream(name).read()
        return _workbook_formulas(data)
    except (OSError, struct.error, ValueError, IndexError):
        return None  # a damaged stream: the caller falls back to text rules


def _records(data: bytes, pos: int):
    """(type, payload offset, payload length) of each record from `pos` to the end."""
    end = len(data)
    while pos + 4 <= end:
        rtype, length = struct.unpack_from("<HH", data, pos)
        yield rtype, pos + 4, length
        pos += 4 + length


def _workbook_formulas(data: bytes) -> BiffCensus | None:
    sheets: list[tuple[int, str]] = []
    others: dict[str, str] = {}
    version = None
    codepage = "cp1252"
    for rtype, at, length in _records(data, 0):
        if rtype == 0x0809 and version is None:
            version = struct.unpack_from("<H", data, at)[0]
        elif rtype == CODEPAGE and length >= 2:
            codepage = _codec(struct.unpack_from("<H", data, at)[0])
        elif rtype == BOUNDSHEET:
            offset, _state, kind = struct.unpack_from("<IBB", data, at)
            name = _sheet_name(data, at + 6, version == BIFF8, codepage)
            if kind in SHEET_TYPES:
                sheets.append((offset, name))
            elif kind in OTHER_SHEET_TYPES:
                others[name] = OTHER_SHEET_TYPES[kind]
        elif rtype == EOF:
            break
    if version is None:
        return None
    return BiffCensus({name: _formulas_from(data, offset) for offset, name in sheets}, others)


def _formulas_from(data: bytes, start: int) -> frozenset[tuple[int, int]]:
    """Formula cells of the sheet substream starting at `start` (embedded charts skipped)."""
    cells = set()
    depth = 0
    for rtype, at, length in _records(data, start):
        if rtype in BOF_TYPES:
            depth += 1
        elif rtype == EOF:
            depth -= 1
            if depth <= 0:
                break
        elif rtype in FORMULA_TYPES and depth == 1 and length >= 4:
            row, col = struct.unpack_from("<HH", data, at)
            cells.add((row, col))
    return frozenset(cells)


def _sheet_name(data: bytes, at: int, unicode_flags: bool, codepage: str) -> str:
    n = data[at]
    if not unicode_flags:  # BIFF5: bytes in the workbook's code page
        return data[at + 1 : at + 1 + n].decode(codepage, "replace")
    wide = data[at + 1] & 0x01
    raw = data[at + 2 : at + 2 + n * (2 if wide else 1)]
    return raw.decode("utf-16-le" if wide else "latin-1", "replace")


def _codec(codepage: int) -> str:
    if codepage in (1200, 0x04B0):
        return "utf-16-le"
    if codepage == 0x8000:
        return "mac_roman"
    name = f"cp{codepage}"
    try:
        "".encode(name)
    except LookupError:
        return "cp1252"
    return name
