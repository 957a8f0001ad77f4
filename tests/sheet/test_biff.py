"""The BIFF census: which cells of an .xls hold formulas, straight from its records."""

from __future__ import annotations

import gzip
import json
import struct
from collections import defaultdict

from openpyxl.utils import coordinate_to_tuple

from fortap.sheet.biff import BiffCensus, census

from .sheet_builders import ole_file


def record(rtype: int, payload: bytes) -> bytes:
    return struct.pack("<HH", rtype, len(payload)) + payload


def bof(vers: int = 0x0600, kind: int = 0x0005) -> bytes:
    return record(0x0809, struct.pack("<HH", vers, kind) + b"\0" * 12)


EOF = record(0x000A, b"")


def boundsheet(offset: int, kind: int, name: str) -> bytes:
    return record(
        0x0085, struct.pack("<IBBBB", offset, 0, kind, len(name), 0) + name.encode("latin-1")
    )


def formula(row: int, col: int) -> bytes:
    return record(0x0006, struct.pack("<HHH", row, col, 0) + b"\0" * 14)


def number(row: int, col: int) -> bytes:
    return record(0x0203, struct.pack("<HHHd", row, col, 0, 1.0))


def test_biff8_census_lists_formula_cells_and_chart_sheets(tmp_path):
    globals_len = len(bof() + boundsheet(0, 0, "Data") + boundsheet(0, 2, "Chart") + EOF)
    sheet_stream = bof(kind=0x0010) + number(0, 0) + formula(2, 3) + formula(4, 0) + EOF
    stream = (
        bof()
        + boundsheet(globals_len, 0, "Data")
        + boundsheet(globals_len + len(sheet_stream), 2, "Chart")
        + EOF
        + sheet_stream
        + bof(kind=0x0020)
        + EOF
    )
    path = ole_file(tmp_path / "book.xls", "Workbook", stream)
    assert census(path) == BiffCensus(
        {"Data": frozenset({(2, 3), (4, 0)})}, {"Chart": "chartsheet"}
    )


def test_bare_biff4_stream_is_one_sheet(tmp_path):
    path = tmp_path / "old.xls"
    path.write_bytes(
        record(0x0409, struct.pack("<HHH", 0, 0x10, 0))
        + record(0x0406, struct.pack("<HH", 1, 1) + b"\0" * 20)
        + EOF
    )
    found = census(path)
    assert found.sheet_formulas("Sheet1") == frozenset({(1, 1)})


def test_not_biff(tmp_path):
    path = tmp_path / "x.xls"
    path.write_text("<html><table></table></html>")
    assert census(path) is None


def test_real_xls_census_matches_sheetjs(data_dir):
    folder = data_dir / "checkcell_benchmarks"
    expected = defaultdict(set)
    with gzip.open(folder / "xls_formulas.sheetjs.jsonl.gz", "rt") as fh:
        for row in map(json.loads, fh):
            if row["file"] in ("files/DB2003_X_Countries.xls", "files/104r.xls"):
                r, c = coordinate_to_tuple(row["cell"])
                expected[(row["file"], row["sheet"])].add((r - 1, c - 1))
    for (file, sheet), cells in expected.items():
        assert census(folder / file).sheet_formulas(sheet) == cells, (file, sheet)
