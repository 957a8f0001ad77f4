"""Builders for tiny test workbooks: openpyxl books with cached values, OLE containers, zips.

openpyxl writes a formula cell as `<f>..</f><v/>` (it computes nothing), so `with_cached`
patches the sheet XML afterwards to hold the value a spreadsheet program would have stored.
"""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path

import openpyxl

SHEET1 = "xl/worksheets/sheet1.xml"


def rewrite_member(path: Path, member: str, edit) -> None:
    """Replace one zip member's text with `edit(text)`, keeping every other member."""
    with zipfile.ZipFile(path) as src:
        items = [(info, src.read(info)) for info in src.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, data in items:
            if info.filename == member:
                data = edit(data.decode("utf-8")).encode("utf-8")
            dst.writestr(info.filename, data)


def with_cached(path: Path, cached: dict[str, tuple[str, str | None]]) -> None:
    """Give formula cells a cached `<v>`: {"B1": ("2", None), "C1": ("ab", "str")}."""

    def edit(xml: str) -> str:
        for ref, (text, kind) in cached.items():
            pattern = re.compile(rf'<c r="{ref}"([^>]*)>(<f[^>]*>.*?</f>|<f[^>]*/>)<v\s*/>')
            t_attr = f' t="{kind}"' if kind else ""
            xml, n = pattern.subn(
                lambda m, r=ref, t=t_attr, v=text: (
                    f'<c r="{r}"{m.group(1)}{t}>{m.group(2)}<v>{v}</v>'
                ),
                xml,
            )
            assert n == 1, f"formula cell {ref} not found in the sheet XML"
        return xml

    rewrite_member(path, SHEET1, edit)


def save_book_in(folder: Path):
    """`save(fill, name="book.xlsx")`: a new workbook whose active sheet `fill(ws)` fills."""

    def save(fill, name: str = "book.xlsx") -> Path:
        wb = openpyxl.Workbook()
        fill(wb.active)
        path = folder / name
        wb.save(path)
        return path

    return save


# --- a minimal OLE compound file (MS-CFB v3, 512-byte sectors) with one stream -------------
FREE, END, FATSECT, NOSTREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def _dir_entry(name: str, kind: int, child: int, start: int, size: int) -> bytes:
    encoded = (name + "\0").encode("utf-16-le") if name else b""
    return (
        encoded.ljust(64, b"\0")
        + struct.pack("<HBB3I", len(encoded), kind, 1, NOSTREAM, NOSTREAM, child)
        + b"\0" * 16  # class id
        + struct.pack("<I", 0)  # state bits
        + b"\0" * 16  # creation and modification times
        + struct.pack("<IQ", start, size)
    )


def ole_file(path: Path, stream_name: str, data: bytes) -> Path:
    """Write an OLE container holding one stream (padded to 4096 bytes: no mini stream)."""
    data = data.ljust(4096, b"\0")
    n_data = len(data) // 512
    fat = [FATSECT, END] + [2 + i + 1 for i in range(n_data - 1)] + [END]
    fat_sector = struct.pack(f"<{len(fat)}I", *fat).ljust(512, b"\xff")
    directory = (
        _dir_entry("Root Entry", 5, 1, END, 0)
        + _dir_entry(stream_name, 2, NOSTREAM, 2, len(data))
        + _dir_entry("", 0, NOSTREAM, 0, 0) * 2
    )
    header = (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
        + b"\0" * 16
        + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6)
        + b"\0" * 6
        + struct.pack("<IIIIIIIII", 0, 1, 1, 0, 4096, END, 0, END, 0)
        + struct.pack("<I", 0)
        + struct.pack("<108I", *([FREE] * 108))
    )
    assert len(header) == 512
    path.write_bytes(header + fat_sector + directory + data)
    return path
