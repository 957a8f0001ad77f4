"""Two published answer keys of spreadsheet errors, read into `KeySheet`s.

- TASI (`tasi_key`): `Spreadsheet Error Dataset/Subject/Groundtruth and tool results.xls`, one
  row per worksheet of 70 EUSES books (291 rows): the ground-truth cells split into "Missing
  formula error" (typed numbers that should be formulas, `findings.MISSING`) and "Formula
  error" (`findings.INCONSISTENT`), and the cells each of seven checkers flagged. Cells are A1
  lists ("D17, E6") or "None"; three are written in mixed case (`Aa2`). The .xls is read as
  every .xls is, through LibreOffice (`sheet.read.read_workbook`).
- ExceLint (`excelint_key`): `annotations-processed.json`, per .xlsx book and sheet the "bug"
  cells as 1-based `[column, row, 0]`; the key has no kinds. Five sheet names lack the
  workbook's trailing space: `resolve_sheet` finds those.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from fortap.audit.findings import INCONSISTENT, MISSING
from fortap.errors import FortapError
from fortap.sheet.model import Sheet

TASI_FILE = Path("Spreadsheet Error Dataset/Subject/Groundtruth and tool results.xls")
EXCELINT_FILE = Path("annotations-processed.json")
# the key's column -> the checker's published name, in the key's order
CHECKERS = {
    "TasiError": "Tasi",
    "Custodes": "CUSTODES",
    "Cacheck": "CACheck",
    "ExceLint": "ExceLint",
    "Excel": "Excel",
    "AmCheck": "AmCheck",
    "Ucheck&Dimension": "UCheck&Dimension",
}
TASI_KINDS = {"Missing formula error": MISSING, "Formula error": INCONSISTENT}
Cell = tuple[int, int]


@dataclass(frozen=True)
class KeySheet:
    """One worksheet of a key: its cells (kind, or None when the key gives none) and, for TASI,
    the cells each checker flagged."""

    book: Path
    sheet: str
    cells: dict[Cell, str | None]
    flags: dict[str, frozenset[Cell]] = field(default_factory=dict)


def parse_a1_list(text: str, where: str) -> set[Cell]:
    """`"D17, E6"` -> {(16, 3), (5, 4)}; "None" or empty -> set()."""
    text = (text or "").strip()
    if text.casefold() in ("none", ""):
        return set()
    out = set()
    for token in re.split(r"[,;\s]+", text.upper()):
        m = re.fullmatch(r"([A-Z]{1,3})([0-9]+)", token)
        if token and m is None:
            raise FortapError(f"{where}: {token!r} is not a cell")
        if m is not None:
            col = 0
            for ch in m[1]:
                col = col * 26 + ord(ch) - 64
            out.add((int(m[2]) - 1, col - 1))
    return out


def tasi_key(root: Path) -> list[KeySheet]:
    """The 291 worksheet rows of the TASI key under `root` (the data folder `tasi`)."""
    from fortap.sheet.read import read_workbook  # openpyxl and LibreOffice: only when reading

    path = Path(root) / TASI_FILE
    table = read_workbook(path).sheets[0]
    head = {str(table.cell(0, c).value).strip(): c for c in range(table.n_cols)}
    missing = [h for h in (*TASI_KINDS, *CHECKERS, "category", "Spreadsheet", "Worksheet")
               if h not in head]  # fmt: skip
    if missing:
        raise FortapError(f"{path}: no column {', '.join(missing)}")
    out = []
    for r in range(1, table.n_rows):
        text = lambda h, r=r: str(table.cell(r, head[h]).value or "")  # noqa: E731
        where = f"{path.name} row {r + 1}"
        cells: dict[Cell, str | None] = {}
        for column, kind in TASI_KINDS.items():
            cells.update(dict.fromkeys(parse_a1_list(text(column), where), kind))
        flags = {name: frozenset(parse_a1_list(text(col), where)) for col, name in CHECKERS.items()}
        book = path.parent / text("category").strip() / text("Spreadsheet").strip()
        out.append(KeySheet(book, text("Worksheet"), cells, flags))
    return out


def excelint_key(root: Path) -> list[KeySheet]:
    """ExceLint's annotated sheets under `root` (the data folder `euses_excelint`), those with
    no bug included (a finding there is a false alarm)."""
    path = Path(root) / EXCELINT_FILE
    data = json.loads(path.read_text())
    out = []
    for book, sheets in sorted(data.items()):
        for sheet, entry in sorted(sheets.items()):
            cells = {(row - 1, col - 1): None for col, row, _ in entry.get("bugs", [])}
            out.append(KeySheet(Path(root) / "subjects_xlsx" / book, sheet, cells))
    return out


def resolve_sheet(sheets: list[Sheet], name: str, book: Path) -> Sheet:
    """The workbook's sheet called `name`, or the one whose name differs only by surrounding
    spaces (the ExceLint key drops a trailing one); a `FortapError` naming both otherwise."""
    exact = next((s for s in sheets if s.name == name), None)
    if exact is not None:
        return exact
    near = [s for s in sheets if s.name.strip() == name.strip()]
    if len(near) == 1:
        return near[0]
    raise FortapError(f"{book}: the key's sheet {name!r} is not in the workbook")
