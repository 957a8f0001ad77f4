"""Turn openpyxl's style tables into our `CellStyle`, once per distinct cell format.

A workbook stores each distinct combination of font, fill, border, alignment and number
format once (an `xf` record) and every cell points at one by index. `StyleTable` converts
an index the first time a cell asks for it and serves the same frozen `CellStyle` after that,
so a sheet of a million cells costs a few dozen conversions.

`load_cell_styles` stands in for openpyxl's `apply_stylesheet`: it gives the workbook the same
cell formats, fonts, fills, borders and number formats, and leaves out the named styles,
differential formats and table styles before openpyxl builds its objects, since no `CellStyle`
field reads them. A workbook can hold tens of thousands of named styles (the TIMES-NZ books of
the shared data hold 46,720 in a 10 MB `styles.xml`), and building them took openpyxl about
25 s per such book.
"""

from __future__ import annotations

from openpyxl.styles.colors import COLOR_INDEX
from openpyxl.styles.numbers import BUILTIN_FORMATS, BUILTIN_FORMATS_MAX_SIZE
from openpyxl.styles.stylesheet import Stylesheet
from openpyxl.utils.indexed_list import IndexedList
from openpyxl.workbook import Workbook as OpenpyxlWorkbook
from openpyxl.xml.constants import ARC_STYLE
from openpyxl.xml.functions import fromstring

from fortap.sheet.model import DEFAULT_STYLE, CellStyle

N_PALETTE = 64  # indexed colours 64 and above mean "system foreground/background" (automatic)
# parts of styles.xml that no `CellStyle` field reads: named styles, differential formats
# (conditional formatting), table styles and extensions
UNREAD_STYLE_PARTS = frozenset({"cellStyleXfs", "cellStyles", "dxfs", "tableStyles", "extLst"})


def load_cell_styles(archive, wb: OpenpyxlWorkbook) -> None:
    """Read `styles.xml` of `archive` into `wb`'s cell formats (see the module doc); a
    workbook without one, or without cell formats, keeps openpyxl's defaults."""
    try:
        src = archive.read(ARC_STYLE)
    except KeyError:
        return
    node = fromstring(src)
    for part in [c for c in node if c.tag.rsplit("}", 1)[-1] in UNREAD_STYLE_PARTS]:
        node.remove(part)
    sheet = Stylesheet.from_tree(node)
    if not sheet.cell_styles:
        return
    wb._borders = IndexedList(sheet.borders)
    wb._fonts = IndexedList(sheet.fonts)
    wb._fills = IndexedList(sheet.fills)
    wb._number_formats = sheet.number_formats
    wb._protections = sheet.protections
    wb._alignments = sheet.alignments
    wb._cell_styles = sheet.cell_styles
    wb._date_formats = sheet.date_formats
    wb._timedelta_formats = sheet.timedelta_formats


def argb(color) -> str | None:
    """An openpyxl `Color` as ARGB text, or None for theme, automatic and system colours."""
    if color is None:
        return None
    kind = getattr(color, "type", None)
    if kind == "rgb":
        value = color.rgb
        return value.upper() if isinstance(value, str) and len(value) == 8 else None
    if kind == "indexed":
        index = color.indexed
        if isinstance(index, int) and 0 <= index < min(N_PALETTE, len(COLOR_INDEX)):
            return COLOR_INDEX[index].upper()
    return None


class StyleTable:
    """`CellStyle` for each `xf` index of one openpyxl workbook, converted lazily."""

    def __init__(self, wb: OpenpyxlWorkbook) -> None:
        self._wb = wb
        self._cache: dict[int, CellStyle] = {}

    def __getitem__(self, index: int) -> CellStyle:
        style = self._cache.get(index)
        if style is None:
            style = self._cache[index] = self._convert(index)
        return style

    def _convert(self, index: int) -> CellStyle:
        wb = self._wb
        try:
            xf = wb._cell_styles[index]
        except IndexError:
            return DEFAULT_STYLE  # a dangling index: Excel shows such cells unformatted
        font = _pick(wb._fonts, xf.fontId)
        fill = _pick(wb._fills, xf.fillId)
        border = _pick(wb._borders, xf.borderId)
        align = _pick(wb._alignments, xf.alignmentId)
        style = CellStyle(
            number_format=self._number_format(xf.numFmtId),
            bold=bool(getattr(font, "b", False)),
            italic=bool(getattr(font, "i", False)),
            font_color=argb(getattr(font, "color", None)),
            fill_color=_solid_fill(fill),
            border_top=_has_side(border, "top"),
            border_bottom=_has_side(border, "bottom"),
            border_left=_has_side(border, "left"),
            border_right=_has_side(border, "right"),
            h_align=_h_align(align),
            indent=int(getattr(align, "indent", 0) or 0),
        )
        return DEFAULT_STYLE if style == DEFAULT_STYLE else style

    def _number_format(self, fmt_id: int) -> str:
        if fmt_id < BUILTIN_FORMATS_MAX_SIZE:
            return BUILTIN_FORMATS.get(fmt_id, "General")
        custom = self._wb._number_formats
        i = fmt_id - BUILTIN_FORMATS_MAX_SIZE
        return custom[i] if i < len(custom) else "General"


def _pick(table, index: int):
    return table[index] if 0 <= index < len(table) else None


def _solid_fill(fill) -> str | None:
    if fill is None or getattr(fill, "patternType", None) != "solid":
        return None
    return argb(fill.fgColor)


def _has_side(border, side: str) -> bool:
    edge = getattr(border, side, None) if border is not None else None
    return edge is not None and edge.style is not None


def _h_align(align) -> str | None:
    value = getattr(align, "horizontal", None) if align is not None else None
    return None if value in (None, "general") else value
