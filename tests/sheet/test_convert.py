""".xls through LibreOffice: formulas kept, artefacts dropped, results cached, failures named."""

from __future__ import annotations

import gzip
import json
import shutil
import struct
from collections import Counter
from pathlib import Path

import pytest

from fortap.errors import SheetError
from fortap.sheet import Cell, ReadLimits, read_workbook, read_workbooks
from fortap.sheet import convert as convert_module
from fortap.sheet.biff import BiffCensus
from fortap.sheet.xlsx import read_xlsx

from .sheet_builders import SHEET1, ole_file, rewrite_member

SMALL_XLS = "checkcell_benchmarks/files/104r.xls"


def sheetjs_census(data_dir: Path, folder: str, file: str) -> Counter:
    counts: Counter = Counter()
    with gzip.open(data_dir / folder / "xls_formulas.sheetjs.jsonl.gz", "rt") as fh:
        for line in fh:
            row = json.loads(line)
            if row["file"] == file:
                counts[row["sheet"]] += 1
    return counts


@pytest.mark.slow
def test_xls_conversion_keeps_every_formula(data_dir, tmp_path, monkeypatch):
    path = data_dir / SMALL_XLS
    book = read_workbook(path, cache_dir=tmp_path)
    assert book.converted_from == str(path)
    assert Path(book.path).parent == tmp_path and Path(book.path).suffix == ".xlsx"
    ours = Counter({s.name: sum(1 for _ in s.formula_cells()) for s in book.sheets})
    assert +ours == sheetjs_census(data_dir, "checkcell_benchmarks", "files/104r.xls")
    assert ours.total() == 22
    sheet = book.sheets[0]
    assert sheet.book == str(path)
    assert sheet.cell(16, 3).formula == "=SUM(D9:D16)"  # D17, as SheetJS reads it
    assert sheet.cell(16, 3).kind == "number"

    # The second read comes from the cache: LibreOffice is not needed any more.
    monkeypatch.setattr(convert_module.shutil, "which", lambda name: None)
    again = read_workbook(path, cache_dir=tmp_path)
    assert again.path == book.path and again.sheets[0].cells == sheet.cells


def test_libreoffice_artefacts_on_booleans_are_dropped(save_book, tmp_path):
    def fill(ws):
        ws["A1"], ws["B1"], ws["C1"] = True, False, 1
        ws["D1"] = "=C1+1"

    path = save_book(fill)

    def as_libreoffice_writes_it(xml: str) -> str:
        xml = xml.replace('<c r="A1" t="b"><v>1</v>', '<c r="A1" t="b"><f>TRUE()</f><v>1</v>')
        return xml.replace('<c r="B1" t="b"><v>0</v>', '<c r="B1" t="b"><f></f><v>0</v>')

    rewrite_member(path, SHEET1, as_libreoffice_writes_it)
    (raw,), _ = read_xlsx(path, ReadLimits())
    assert raw.cell(0, 0).formula == "=TRUE()" and raw.cell(0, 1).formula == "="
    (sheet,), _ = read_xlsx(path, ReadLimits(), converted_from=str(tmp_path / "orig.xls"))
    assert sheet.cell(0, 0) == Cell(True, "bool")
    assert sheet.cell(0, 1) == Cell(False, "bool")
    assert sheet.cell(0, 3).formula == "=C1+1"


def test_soffice_missing(data_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(convert_module.shutil, "which", lambda name: None)
    with pytest.raises(SheetError) as err:
        read_workbook(data_dir / SMALL_XLS, cache_dir=tmp_path)
    assert err.value.reason == "soffice_missing"
    assert str(err.value) == (
        "LibreOffice (soffice) is needed to read .xls/.ods files: install it with "
        "`apt-get install libreoffice-calc-nogui` (104r.xls)"
    )
    ((_, result),) = read_workbooks([data_dir / SMALL_XLS], cache_dir=tmp_path)
    assert isinstance(result, SheetError) and result.reason == "soffice_missing"


def test_conversion_timeout(data_dir, tmp_path):
    with pytest.raises(SheetError) as err:
        read_workbook(data_dir / SMALL_XLS, ReadLimits(convert_timeout_s=0.01), cache_dir=tmp_path)
    assert (err.value.reason, str(err.value)) == (
        "conversion_timeout",
        "LibreOffice conversion to .xlsx timed out (104r.xls)",
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")
def test_conversion_failure_is_per_file(data_dir, tmp_path):
    """A damaged .xls fails alone; the good file in its batch is read."""
    junk = ole_file(tmp_path / "junk.xls", "Workbook", b"hello")
    good = data_dir / SMALL_XLS
    results = dict(read_workbooks([junk, good], cache_dir=tmp_path / "cache"))
    assert results[junk].reason == "conversion_failed"
    assert str(results[junk]).startswith("LibreOffice could not convert the file to .xlsx")
    assert str(results[junk]).endswith("(junk.xls)")
    assert len(results[good].sheets) >= 1


def test_with_a_census_only_cells_without_a_formula_record_lose_their_formula(save_book, tmp_path):
    def fill(ws):
        ws["A1"], ws["B1"] = "#N/A", "#N/A"
        ws["A1"].data_type = ws["B1"].data_type = "e"

    path = save_book(fill)

    def as_libreoffice_writes_it(xml: str) -> str:
        for ref in ("A1", "B1"):
            xml = xml.replace(f'<c r="{ref}" t="e"><v>', f'<c r="{ref}" t="e"><f>NA()</f><v>')
        return xml

    rewrite_member(path, SHEET1, as_libreoffice_writes_it)
    # The original .xls had a FORMULA record at B1 only: A1 was the constant #N/A.
    original = BiffCensus({"Sheet": frozenset({(0, 1)})})
    (sheet,), _ = read_xlsx(path, ReadLimits(), converted_from="orig.xls", census=original)
    assert sheet.cell(0, 0) == Cell("#N/A", "error")
    assert sheet.cell(0, 1) == Cell("#N/A", "error", formula="=NA()")
    assert sheet.book == "orig.xls"


def test_bad_files_never_reach_libreoffice(tmp_path, monkeypatch):
    monkeypatch.setattr(convert_module.shutil, "which", lambda name: None)  # soffice "missing"
    bof = struct.pack("<HH", 0x0809, 4) + b"\x00\x06\x05\x00"
    locked = ole_file(tmp_path / "locked.xls", "Workbook", bof + struct.pack("<HH", 0x002F, 0))
    results = convert_module.convert_to_xlsx(
        [locked, tmp_path / "gone.xls"], ReadLimits(), tmp_path / "cache"
    )
    assert {p.name: e.reason for p, e in results.items()} == {
        "locked.xls": "encrypted",
        "gone.xls": "not_found",
    }


def test_read_workbooks_keeps_order_and_reports_each_file(save_book, tmp_path):
    good = save_book(lambda ws: ws.cell(1, 1, "x"))
    missing = tmp_path / "missing.xlsx"
    results = list(read_workbooks([missing, good], cache_dir=tmp_path / "cache"))
    assert [p for p, _ in results] == [missing, good]
    assert results[0][1].reason == "not_found"
    assert results[1][1].sheets[0].cell(0, 0) == Cell("x", "text")


def test_fortap_cache_dir_moves_the_conversion_cache(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("FORTAP_CACHE_DIR", raising=False)
    assert convert_module.conversion_cache_dir() == tmp_path / "home/.cache/fortap/converted"
    monkeypatch.setenv("FORTAP_CACHE_DIR", str(tmp_path / "cache"))
    assert convert_module.conversion_cache_dir() == tmp_path / "cache/converted"

    # a conversion already in the moved cache is found there: LibreOffice is not needed
    path = data_dir / SMALL_XLS
    cached = tmp_path / "cache/converted" / f"{convert_module.content_key(path)}.xlsx"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"converted before")
    monkeypatch.setattr(convert_module.shutil, "which", lambda name: None)
    assert convert_module.convert_to_xlsx([path], ReadLimits()) == {path: cached}
    assert not (tmp_path / "home").exists()
