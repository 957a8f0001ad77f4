"""Look at a file before any parser touches it: does it exist, what is it really, is it safe.

The extension says what a file claims to be; the first bytes say what it is. A PDF renamed
`.xlsx`, a password-protected workbook (an OLE container holding an `EncryptionInfo` stream
instead of a zip) and a zip whose members claim gigabytes are all refused here with a
`SheetError` whose `reason` names the problem, so that no library deep inside ever sees them.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path
from typing import Literal

import olefile

from fortap.errors import SheetError
from fortap.sheet.limits import ReadLimits

Route = Literal["xlsx", "convert", "delimited"]

OOXML_SUFFIXES = frozenset({".xlsx", ".xlsm", ".xltx", ".xltm"})
CONVERTED_SUFFIXES = frozenset({".xls", ".ods"})
DELIMITED_SUFFIXES = frozenset({".csv", ".tsv"})
SUPPORTED_SUFFIXES = OOXML_SUFFIXES | CONVERTED_SUFFIXES | DELIMITED_SUFFIXES

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
BARE_BIFF_BOF = (b"\x09\x00", b"\x09\x02", b"\x09\x04")  # BOF of BIFF2, BIFF3, BIFF4
BIFF_FILEPASS = 0x002F  # the record that marks an encrypted .xls
BIFF_EOF = 0x000A


def screen(path: Path, limits: ReadLimits) -> Route:
    """Decide how to read `path`, or raise `SheetError` saying why it cannot be read."""
    if not path.exists():
        raise SheetError("not_found", "file not found", path)
    if not path.is_file():
        raise SheetError("not_a_file", "not a regular file", path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise SheetError(
            "unsupported_extension",
            f"unsupported file type {suffix!r} (supported: {supported})",
            path,
        )
    size = path.stat().st_size
    if size > limits.max_file_bytes:
        raise SheetError(
            "file_too_large",
            f"file is {size:,} bytes, over the limit of {limits.max_file_bytes:,}",
            path,
        )
    if suffix in DELIMITED_SUFFIXES:
        return "delimited"
    if size == 0:
        raise SheetError("not_a_spreadsheet", "file is empty (0 bytes), not a spreadsheet", path)
    with path.open("rb") as fh:
        head = fh.read(8)
    if head.startswith(OLE_MAGIC):
        _refuse_encrypted(path)
        # Not encrypted: a binary .xls (an OLE file named .xlsx is one renamed); LibreOffice reads it.
        return "convert"
    if head.startswith(ZIP_MAGIC):
        check_zip(path, limits)
        return "convert" if suffix in CONVERTED_SUFFIXES else "xlsx"
    if suffix == ".xls" and head[:2] in BARE_BIFF_BOF:
        if _biff_has_filepass(path.read_bytes()[: 1 << 16]):
            raise SheetError("encrypted", "workbook is password-protected (encrypted .xls)", path)
        return "convert"  # Excel 2.x-4.0: a bare BIFF record stream, which LibreOffice reads
    if suffix == ".xls" and _looks_like_markup(path):
        return "convert"  # HTML or SpreadsheetML 2003 saved as .xls; LibreOffice reads both
    raise SheetError(
        "not_a_spreadsheet",
        f"not a spreadsheet: the content is {_describe(head)}, not a {suffix} workbook",
        path,
    )


def check_zip(path: Path, limits: ReadLimits) -> None:
    """Refuse a zip that is corrupt or whose declared sizes betray a decompression bomb."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise SheetError("corrupt_zip", f"corrupt or truncated zip archive ({err})", path) from None
    total = sum(m.file_size for m in members)
    if total > limits.max_uncompressed_bytes:
        raise SheetError(
            "zip_bomb",
            f"zip members declare {total:,} bytes uncompressed, over the limit of "
            f"{limits.max_uncompressed_bytes:,}",
            path,
        )
    for m in members:
        if m.file_size >= limits.ratio_min_bytes:
            ratio = m.file_size / max(m.compress_size, 1)
            if ratio > limits.max_compression_ratio:
                raise SheetError(
                    "zip_bomb",
                    f"zip member {m.filename} expands {ratio:,.0f}-fold, over the limit of "
                    f"{limits.max_compression_ratio:,.0f}",
                    path,
                )


def _refuse_encrypted(path: Path) -> None:
    """Raise if an OLE compound file is a password-protected workbook or no workbook at all."""
    try:
        with olefile.OleFileIO(str(path)) as ole:
            if ole.exists("EncryptionInfo") or ole.exists("EncryptedPackage"):
                raise SheetError("encrypted", "workbook is password-protected (encrypted)", path)
            streams = [s for s in ("Workbook", "Book") if ole.exists(s)]
            if not streams:
                raise SheetError(
                    "not_a_spreadsheet",
                    "not a spreadsheet: an OLE file without a workbook stream (a Word or other "
                    "Office document?)",
                    path,
                )
            if _biff_has_filepass(ole.openstream(streams[0]).read(1 << 16)):
                raise SheetError(
                    "encrypted", "workbook is password-protected (encrypted .xls)", path
                )
    except SheetError:
        raise
    except Exception as err:  # olefile raises plain OSError/struct errors on damaged containers
        raise SheetError(
            "corrupt_file", f"damaged OLE compound file ({type(err).__name__}: {err})", path
        ) from None


def _biff_has_filepass(data: bytes) -> bool:
    """True when the workbook-globals substream of a BIFF stream holds a FILEPASS record."""
    pos = 0
    while pos + 4 <= len(data):
        rtype, length = struct.unpack_from("<HH", data, pos)
        if rtype == BIFF_FILEPASS:
            return True
        if rtype == BIFF_EOF:
            return False
        pos += 4 + length
    return False


def _looks_like_markup(path: Path) -> bool:
    with path.open("rb") as fh:
        head = fh.read(512).lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<?xml", b"<html", b"<!doctype html", b"<table"))


def _describe(head: bytes) -> str:
    if head.startswith(b"%PDF"):
        return "a PDF document"
    if all(32 <= b < 127 or b in (9, 10, 13) for b in head):
        return "plain text"
    return "unrecognised binary data"
