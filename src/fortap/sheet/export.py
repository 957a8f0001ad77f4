"""A workbook as .xlsx with formulas written in: `export_xlsx`, `not_kept`.

Used by `fortap serve` (a session's accepted formulas) and `fortap recover` (the formulas put
back). An .xlsx/.xlsm upload is opened again with openpyxl and saved, so its styles, widths and
merges survive; an .xls/.ods upload goes through the .xlsx LibreOffice made of it; a .csv (or
an .xls/.ods whose conversion is gone) is written from fortap's `Workbook` model (values,
formulas, number formats, bold, merges). `not_kept` lists, in words a user reads, what the
saved file will not hold that the upload did.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path

from fortap.sheet.model import Workbook

OOXML = frozenset({".xlsx", ".xlsm", ".xltx", ".xltm"})

# zip member prefix in an .xlsx -> what openpyxl changes or drops when it saves the file again
_DROPPED_PARTS = (
    (
        "xl/charts/",
        "chart styles: openpyxl rebuilds charts from what it reads, so their look may change",
    ),
    ("xl/media/", "image effects: openpyxl keeps images but may drop their cropping and effects"),
    ("xl/vbaProject.bin", "macros (VBA): the download is a macro-free .xlsx"),
    ("xl/slicers/", "slicers"),
    ("xl/timelines/", "timelines"),
    ("xl/ctrlProps/", "form controls"),
)
_SHAPE = re.compile(rb"<(?:\w+:)?sp[ >]")  # a shape or text box in a drawing part
VALUES_NOTE = "cached formula values: Excel or LibreOffice recompute them when the file is opened"


def not_kept(upload: Path, book: Workbook) -> list[str]:
    """What the .xlsx download loses against the uploaded file, one sentence each."""
    suffix = upload.suffix.lower()
    notes: list[str] = []
    if suffix in OOXML:
        with zipfile.ZipFile(upload) as zf:
            names = zf.namelist()
            drawings = [n for n in names if n.startswith("xl/drawings/drawing")]
            # the reader's zip-bomb limits were checked when the upload was opened
            shapes = any(_SHAPE.search(zf.read(n)) for n in drawings)
        for prefix, words in _DROPPED_PARTS:
            if any(n.startswith(prefix) for n in names):
                notes.append(words)
        if shapes:
            notes.append("shapes and text boxes: openpyxl drops them")
    elif suffix == ".csv" or suffix == ".tsv":
        notes.append(f"the {suffix} format: the download is an .xlsx with one sheet")
    else:
        notes.append(
            f"the {suffix} format: the download is the .xlsx LibreOffice converted it to, "
            "so formatting .xlsx has no place for is gone"
        )
    if book.skipped_sheets:
        names = ", ".join(name for name, _ in book.skipped_sheets)
        notes.append(f"sheets fortap did not read ({names})")
    notes.append(VALUES_NOTE)
    return notes


def export_xlsx(upload: Path, book: Workbook, accepted: Mapping[tuple[str, str], str]) -> bytes:
    """The .xlsx bytes of the session's workbook with every accepted `(sheet, A1) -> formula`."""
    import openpyxl

    source = _openpyxl_source(upload, book)
    if source is not None:
        wb = openpyxl.load_workbook(source, keep_vba=False, rich_text=False)
    else:
        wb = _from_model(book)
    for (sheet, address), formula in accepted.items():
        wb[sheet][address] = _cell_formula(formula, address)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def array_text(formula: str) -> str:
    """An array formula as Excel shows it and `accepted` keeps it: `{=SUM(A1:A3*B1:B3)}`."""
    return "{" + formula + "}"


def _cell_formula(text: str, address: str):
    """What openpyxl writes for an accepted formula: an `ArrayFormula` over its own cell for
    `{=...}` (`array_text`), else the text."""
    from openpyxl.worksheet.formula import ArrayFormula

    if text.startswith("{=") and text.endswith("}"):
        return ArrayFormula(address, text[1:-1])
    return text


def _openpyxl_source(upload: Path, book: Workbook) -> Path | None:
    if upload.suffix.lower() in OOXML:
        return upload
    converted = Path(book.path)
    if book.converted_from and converted.suffix.lower() in OOXML and converted.is_file():
        return converted
    return None


def _from_model(book: Workbook):
    """A new openpyxl workbook holding what fortap read: values, formulas, formats, merges."""
    import openpyxl
    from openpyxl.styles import Font
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    bold = Font(bold=True)
    for sheet in book.sheets:
        ws = wb.create_sheet(sheet.name)
        for (r, c), cell in sheet.cells.items():
            target = ws.cell(row=r + 1, column=c + 1)
            target.value = cell.formula if cell.formula is not None else cell.value
            if cell.formula is not None and cell.array_formula:
                spans = [a.a1 for a in sheet.arrays if (a.top, a.left) == (r, c)]
                target.value = ArrayFormula(spans[0] if spans else target.coordinate, cell.formula)
            if cell.style.number_format != "General":
                target.number_format = cell.style.number_format
            if cell.style.bold:
                target.font = bold
        for region in sheet.merged:
            ws.merge_cells(region.a1)
    return wb
