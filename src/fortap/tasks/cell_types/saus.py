"""SAUS -> sheets with cell types: `read_saus`, `saus_sheet` and the feature -> style mapping.

SAUS (`../shared/data/saus_ctc/saus.jl.gz`, one JSON line per .xls sheet) gives each sheet's
texts (`table_array`), 43 per-cell features (`feature_array`, named by `feature_names`) and
per-cell labels (`annotations`). `saus_sheet` turns one line into a `Sheet` as fortap's reader
would give it: numeric texts become numbers (codes with a leading zero such as "01" stay
text), the literal "None" that SAUS writes for some empty cells becomes empty, and the
features that say what a real workbook's format says become a `CellStyle` (`saus_style`), so a
model trained here reads a user's sheet through the same format vector.

The mapping (`saus_style`), feature -> `CellStyle` field:

| SAUS feature | CellStyle | note |
|---|---|---|
| is_bold | bold | |
| indentation | indent | |
| h_alignment=0 / h_alignment=2 | h_align None (general) / "center" | else "other": SAUS does not say left or right |
| border_top_type=1 | border_top | a thin top border, on 731 labelled cells |
| leading_spaces | leading spaces of the text | as a sheet's own text keeps them |

Left out, because on SAUS they do not mean what their names say or say nothing a reader
gives: `border_bottom_type=0`, `border_right_type=0` and `cell_borders=0` are 0 on every
labelled cell and `is_wraptext` is 1 on every one; `fill_patern=0` and `is_font_color_default`
give a fill pattern and a palette slot, not the colours that `format_vector` asks about
(most SAUS cells are filled solid); `is_aggr_formula=1` equals `cell_type=2` (the .xls
numeric-cell flag) on all but 14 labelled cells, so it is not a formula flag and the format
vector's formula bit stays 0 on SAUS. The other features describe the text or the
neighbourhood, which the encoder reads from the cells themselves.

Numbers are decided from the text (`to_cell`), not from `cell_type=2`: the two disagree on about
11,400 labelled cells, nearly all labels the .xls stores as text that read as numbers (years
such as "1990", sizes such as "1,000"), which become numbers here, while a reader of the .xls
would give text; and 16 numbers in scientific notation, which stay text. Header detection's
rules were set on the text rule (`bench/headers.py`), so both keep it.

Three sheets appear twice in the file (the same file and sheet, once from an "in_progress"
folder); `read_saus` keeps the first line of each, so 220 labelled sheets of 200 files remain.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from fortap.errors import FortapError
from fortap.sheet.model import Cell, CellStyle, Region, Sheet
from fortap.table.detect import build_table
from fortap.table.model import Table
from fortap.tasks.cell_types.labels import NO_LABEL, saus_label

SAUS_FILE = "saus.jl.gz"
NUMBER = re.compile(r"^-?(\d{1,3}(,\d{3})+|[1-9]\d*|0)(\.\d+)?$")  # "01" stays a code


@dataclass(frozen=True)
class SausSheet:
    """One labelled SAUS sheet: the sheet, its labels and its 43 raw features."""

    file: str  # the .xls file name: the unit of the folds (a file's sheets stay together)
    sheet: Sheet
    labels: tuple[tuple[int, ...], ...]  # (rows, cols) class index or NO_LABEL
    features: tuple[tuple[tuple[float, ...], ...], ...]  # (rows, cols, 43)
    feature_names: tuple[str, ...]
    texts: tuple[tuple[str, ...], ...] = ()  # SAUS's `table_array`: each cell's text, stripped
    source: str = ""  # the formula-labelled set's source (`formula_set`); "" for SAUS itself

    @property
    def key(self) -> str:
        return f"{self.file}!{self.sheet.name}"

    def table(self) -> Table:
        """One `Table` over the whole used range, so titles and notes stay cells."""
        s = self.sheet
        return build_table(s, Region(0, 0, s.n_rows - 1, s.n_cols - 1))


def to_cell(text: str, style: CellStyle | None = None) -> Cell | None:
    """A text of an answer key as a cell: numeric texts become numbers; blank is None."""
    stripped = text.strip()
    if not stripped:
        return None
    if NUMBER.match(stripped):
        return Cell(float(stripped.replace(",", "")), "number", style=style or CellStyle())
    return Cell(text, "text", style=style or CellStyle())


def saus_style(features: Sequence[float], names: Mapping[str, int]) -> CellStyle:
    """The `CellStyle` a reader would give a SAUS cell (see the module's table)."""
    f = {name: features[i] for name, i in names.items()}
    align = "center" if f["h_alignment=2"] > 0 else None if f["h_alignment=0"] > 0 else "other"
    return CellStyle(bold=f["is_bold"] > 0, indent=int(f["indentation"]), h_align=align,
                     border_top=f["border_top_type=1"] > 0)  # fmt: skip


def as_saus(sheet: Sheet) -> Sheet:
    """`sheet` reduced to what the SAUS mapping can show: each style keeps only bold, indent,
    alignment and the top border, formula cells keep their values without the formula, and
    merged regions are dropped. A model trained on SAUS never saw the rest vary, so on a
    user's sheet it reads this view (see the package doc)."""
    cells = {}
    for rc, cell in sheet.cells.items():
        st = cell.style
        style = CellStyle(bold=st.bold, indent=st.indent, border_top=st.border_top,
                          h_align=None if st.h_align in (None, "general") else st.h_align)  # fmt: skip
        cells[rc] = replace(cell, formula=None, array_formula=False, style=style)
    return replace(sheet, cells=cells, merged=())


def saus_sheet(rec: dict) -> Sheet:
    """The `Sheet` of SAUS line `rec`, named after its sheet, in a book named after its .xls file."""
    names = {n: i for i, n in enumerate(rec["feature_names"])}
    cells = {}
    for r, row in enumerate(rec["table_array"]):
        for c, text in enumerate(row):
            style = saus_style(rec["feature_array"][r][c], names)
            text = "" if text == "None" else str(text)  # SAUS writes some empty cells as "None"
            cell = to_cell(text, style)
            if cell is not None and cell.kind == "text":
                spaces = " " * int(rec["feature_array"][r][c][names["leading_spaces"]])
                cell = Cell(spaces + text.strip(), "text", style=style)
            if cell is not None:
                cells[(r, c)] = cell
    return Sheet(rec["table_id"], rec["file_name"], rec["num_rows"], rec["num_cols"], cells)


def saus_folder(paths: Sequence[str | Path]) -> Path:
    """The one SAUS folder (or saus.jl.gz) a cell-type command takes."""
    if len(paths) != 1:
        raise FortapError(f"cell-types takes one SAUS folder (saus_ctc), got {len(paths)} paths")
    return Path(paths[0])


def read_saus(folder: str | Path) -> list[SausSheet]:
    """The labelled sheets of `folder`/saus.jl.gz (or of that file given itself), in file
    order, each (file, sheet) once."""
    path = Path(folder)
    path = path / SAUS_FILE if path.is_dir() else path
    if not path.is_file():
        raise FortapError(f"no SAUS annotations at {path} (expected {SAUS_FILE})")
    out, seen = [], set()
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            key = (rec["file_name"], rec["table_id"])
            if key in seen or not any(a is not None for row in rec["annotations"] for a in row):
                continue
            seen.add(key)
            out.append(_labelled(rec, path))
    if not out:
        raise FortapError(f"{path}: no labelled sheet")
    return out


def _labelled(rec: dict, path: Path) -> SausSheet:
    try:
        labels = tuple(tuple(saus_label(a) for a in row) for row in rec["annotations"])
    except ValueError as err:
        raise FortapError(f"{path}: {rec['file_name']}!{rec['table_id']}: {err}") from None
    sheet = saus_sheet(rec)
    names = {n: i for i, n in enumerate(rec["feature_names"])}
    blank = {  # a labelled cell with no text stays a cell: it is trained on and scored
        (r, c): Cell("", "text", style=saus_style(rec["feature_array"][r][c], names))
        for r, row in enumerate(labels) for c, label in enumerate(row)
        if label != NO_LABEL and (r, c) not in sheet.cells
    }  # fmt: skip
    sheet = replace(sheet, cells={**sheet.cells, **blank})
    features = tuple(tuple(tuple(map(float, f)) for f in row) for row in rec["feature_array"])
    texts = tuple(tuple(str(t) for t in row) for row in rec["table_array"])
    return SausSheet(rec["file_name"], sheet, labels, features, tuple(rec["feature_names"]), texts,
                     rec.get("source", ""))  # fmt: skip
