"""Every kind of bad input ends in one `SheetError` with a stable reason and a clear sentence."""

from __future__ import annotations

import struct
import zipfile

import openpyxl
import pytest

from fortap.errors import SheetError
from fortap.sheet import ReadLimits, read_workbook

from .sheet_builders import SHEET1, ole_file, rewrite_member


def read_error(path, limits=None, **kw) -> SheetError:
    with pytest.raises(SheetError) as err:
        read_workbook(path, limits or ReadLimits(), **kw)
    return err.value


def test_file_not_found(tmp_path):
    err = read_error(tmp_path / "missing.xlsx")
    assert (err.reason, str(err)) == ("not_found", "file not found (missing.xlsx)")


def test_unsupported_extension(tmp_path):
    path = tmp_path / "notes.docx"
    path.write_bytes(b"PK\x03\x04")
    err = read_error(path)
    assert err.reason == "unsupported_extension"
    assert str(err).startswith("unsupported file type '.docx' (supported: .csv, .ods, .tsv, .xls,")
    assert str(err).endswith("(notes.docx)")


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"Dear reader,\nthis is text.\n", "plain text"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3", "a PDF document"),
    ],
)
def test_not_a_spreadsheet(tmp_path, content, what):
    path = tmp_path / "report.xlsx"
    path.write_bytes(content)
    err = read_error(path)
    assert err.reason == "not_a_spreadsheet"
    assert (
        str(err) == f"not a spreadsheet: the content is {what}, not a .xlsx workbook (report.xlsx)"
    )


def test_zip_without_a_workbook(tmp_path):
    path = tmp_path / "archive.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "hi")
    err = read_error(path)
    assert (err.reason, str(err)) == (
        "not_a_spreadsheet",
        "zip archive holds no Excel workbook part (archive.xlsx)",
    )


def test_truncated_zip(save_book):
    path = save_book(lambda ws: ws.cell(1, 1, 1))
    path.write_bytes(path.read_bytes()[:-300])  # cuts into the central directory
    err = read_error(path)
    assert err.reason == "corrupt_zip"
    assert str(err).startswith("corrupt or truncated zip archive (")
    assert str(err).endswith("(book.xlsx)")


def test_corrupt_member_data(save_book):
    path = save_book(lambda ws: ws.cell(1, 1, 1))
    data = bytearray(path.read_bytes())
    start = data.find(b"xl/worksheets/sheet1.xml") + 40  # inside the compressed sheet XML
    data[start : start + 20] = b"\x00" * 20
    path.write_bytes(bytes(data))
    err = read_error(path)
    assert err.reason in ("corrupt_zip", "corrupt_xml")
    assert str(err).endswith("(book.xlsx)")


def test_encrypted_ooxml(tmp_path):
    path = ole_file(tmp_path / "secret.xlsx", "EncryptionInfo", b"\x04\x00\x04\x00")
    err = read_error(path)
    assert (err.reason, str(err)) == (
        "encrypted",
        "workbook is password-protected (encrypted) (secret.xlsx)",
    )


def test_encrypted_xls(tmp_path):
    bof = struct.pack("<HH", 0x0809, 4) + b"\x00\x06\x05\x00"
    filepass = struct.pack("<HH", 0x002F, 2) + b"\x01\x00"
    path = ole_file(tmp_path / "secret.xls", "Workbook", bof + filepass)
    err = read_error(path)
    assert (err.reason, str(err)) == (
        "encrypted",
        "workbook is password-protected (encrypted .xls) (secret.xls)",
    )


def test_ole_file_without_a_workbook_stream(tmp_path):
    path = ole_file(tmp_path / "letter.xls", "WordDocument", b"Dear reader")
    err = read_error(path)
    assert err.reason == "not_a_spreadsheet"
    assert str(err) == (
        "not a spreadsheet: an OLE file without a workbook stream (a Word or other Office "
        "document?) (letter.xls)"
    )


def test_empty_workbook(tmp_path):
    path = tmp_path / "blank.xlsx"
    openpyxl.Workbook().save(path)
    err = read_error(path)
    assert (err.reason, str(err)) == (
        "empty_workbook",
        "workbook has no cells with a value or formula (blank.xlsx)",
    )


def test_xml_entity_bomb(save_book):
    path = save_book(lambda ws: ws.cell(1, 1, "x"))
    bomb = '<!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
    rewrite_member(path, SHEET1, lambda xml: bomb + xml)
    err = read_error(path)
    assert (err.reason, str(err)) == (
        "xml_bomb",
        "unsafe XML refused (EntitiesForbidden) (book.xlsx)",
    )


def test_zip_bomb_by_declared_size(save_book):
    path = save_book(lambda ws: ws.cell(1, 1, 1))
    err = read_error(path, ReadLimits(max_uncompressed_bytes=1000))
    assert err.reason == "zip_bomb"
    assert "declare" in str(err) and "over the limit of 1,000" in str(err)


def test_zip_bomb_by_compression_ratio(tmp_path):
    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/worksheets/sheet1.xml", b"\0" * (4 << 20))
    err = read_error(path, ReadLimits(max_compression_ratio=100))
    assert err.reason == "zip_bomb"
    assert str(err).startswith("zip member xl/worksheets/sheet1.xml expands ")
    assert str(err).endswith("-fold, over the limit of 100 (bomb.xlsx)")


def test_file_over_the_size_limit(save_book):
    path = save_book(lambda ws: ws.cell(1, 1, 1))
    err = read_error(path, ReadLimits(max_file_bytes=100))
    assert err.reason == "file_too_large"
    assert str(err).endswith("over the limit of 100 (book.xlsx)")


@pytest.mark.parametrize("field", ["max_cells", "max_file_bytes", "convert_batch_size"])
def test_limits_reject_nonsense(field):
    with pytest.raises(ValueError, match=f"ReadLimits.{field} must be positive"):
        ReadLimits(**{field: 0})
