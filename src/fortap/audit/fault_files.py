"""Faults (`audit.faults.Fault`) written into a copy of an .xlsx/.xlsm file.

The copy is the original package with only the faulted `<c>` elements rewritten, each in its
sheet's XML; every other byte of every part is kept. openpyxl would rewrite the whole book
and drop every formula's cached value (it writes formulas without `<v>`), which changes what
the audit reads everywhere else: the audit of a copy would then differ from the original's for
reasons other than the faults. The calculation chain (`xl/calcChain.xml`) is dropped, as
Excel does when it rebuilds one that names a formula no longer there.

A typed number keeps the cell's style and its cached `<v>` (the value it showed) and loses its
`<f>`; a shifted reference gets its own `<f>` (a follower of a shared formula no longer
follows) and caches `Fault.value` (none when None). `heads` lists the cells whose `<f>`
carries a `ref` (the head of a shared or array formula, which other cells are read from):
such a cell is not faulted here.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

from fortap.audit.faults import TYPED, Fault
from fortap.formula.references import column_index
from fortap.sheet.model import a1
from fortap.sheet.sheet_part import sheet_parts

CALC_CHAIN = "xl/calcChain.xml"
_CHAIN_TYPE = re.compile(rb'<Override[^>]*?PartName="/xl/calcChain\.xml"[^>]*/>')
_CHAIN_REL = re.compile(rb'<Relationship[^>]*?Target="[^"]*calcChain\.xml"[^>]*/>')
_HEAD_F = re.compile(r'<f\s[^>]*\bref="')  # the head of a shared or array formula
_CELL_REF = re.compile(r'\sr="([A-Z]+)(\d+)"')


class FaultWriteError(ValueError):
    """A fault that cannot be written into the file (its cell is not found as expected)."""


def heads(path: Path) -> frozenset[tuple[str, int, int]]:
    """(sheet, row, col) of every cell holding the head of a shared or array formula."""
    with zipfile.ZipFile(path) as z:
        out = set()
        for name, part in sheet_parts(z).items():
            if part not in z.namelist():
                continue
            xml = z.read(part).decode("utf-8")
            for m in _HEAD_F.finditer(xml):  # the cell it stands in: the last `<c` before it
                start = xml.rfind("<c ", 0, m.start())
                r = None if start < 0 else _CELL_REF.search(xml, start, xml.index(">", start))
                if r is not None:
                    out.add((name, int(r.group(2)) - 1, column_index(r.group(1))))
    return frozenset(out)


def write_copy(src: Path, dst: Path, faults: list[Fault]) -> None:
    """`src` with `faults` written in, as `dst` (see the module doc)."""
    with zipfile.ZipFile(src) as z:
        parts = sheet_parts(z)
        by_part: dict[str, list[Fault]] = {}
        for f in faults:
            if f.sheet not in parts:
                raise FaultWriteError(f"{src.name}: no sheet {f.sheet!r} for a fault")
            by_part.setdefault(parts[f.sheet], []).append(f)
        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as out:
            for info in z.infolist():
                if info.filename == CALC_CHAIN:
                    continue
                data = z.read(info)
                if info.filename in by_part:
                    data = _rewrite(data.decode("utf-8"), by_part[info.filename], src).encode()
                elif info.filename == "[Content_Types].xml":
                    data = _CHAIN_TYPE.sub(b"", data)
                elif info.filename == "xl/_rels/workbook.xml.rels":
                    data = _CHAIN_REL.sub(b"", data)
                out.writestr(info, data)


def _rewrite(xml: str, faults: list[Fault], src: Path) -> str:
    """The sheet's XML with each fault's `<c>` element replaced (from the end: offsets hold)."""
    spans = []
    for f in faults:
        where = f"{f.sheet}!{a1(f.row, f.col)} of {src.name}"
        pat = re.compile(rf'<c\s[^>]*?(?<=\s)r="{a1(f.row, f.col)}"[^>]*?(?:/>|>(.*?)</c>)', re.S)
        m = pat.search(xml)
        if m is None or m.group(1) is None or "<f" not in m.group(1):
            raise FaultWriteError(f"{where}: no formula cell found in the sheet's XML")
        if re.search(r"<f\s[^>]*\bref=", m.group(1)):
            raise FaultWriteError(f"{where}: the head of a shared or array formula")
        spans.append((m.start(), m.end(), _cell(m.group(0), m.group(1), f)))
    for start, end, text in sorted(spans, reverse=True):
        xml = xml[:start] + text + xml[end:]
    return xml


def _cell(element: str, body: str, f: Fault) -> str:
    """The fault's `<c>` element: its own attributes but the type (`t`, the cached value's)
    and cell metadata (`cm`, `vm`: dynamic arrays); a number's value, or the new formula."""
    tag = element[: element.index(">")]
    tag = re.sub(r'\s(?:t|cm|vm)="[^"]*"', "", tag)
    if f.kind == TYPED:
        v = re.search(r"<v>(.*?)</v>", body, re.S)
        if v is None:
            raise FaultWriteError(f"{f.sheet}!{a1(f.row, f.col)}: no cached value to type")
        return f"{tag}><v>{v.group(1)}</v></c>"
    value = "" if f.value is None else f"<v>{f.value!r}</v>"
    return f"{tag}><f>{escape(f.after.lstrip('='))}</f>{value}</c>"
