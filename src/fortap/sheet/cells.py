"""One cell as openpyxl's row parser hands it over -> our frozen `Cell`.

The parser gives a dict per cell: its type code (`n`, `s`, `b`, `e`, `d`, `f` for formula),
its converted value (or the formula text / `ArrayFormula` / `DataTableFormula`), its style
index and, through our hook, the cached `<v>` text of a formula cell. Dates become ISO text
with kind "date"; numbers become floats.
"""

from __future__ import annotations

import datetime as dt

from openpyxl.utils import range_boundaries
from openpyxl.utils.datetime import from_excel
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

from fortap.sheet.model import DEFAULT_STYLE, Cell, CellStyle, Region
from fortap.sheet.styles import StyleTable

# LibreOffice writes these formulas on constant cells when it converts an .xls: `=TRUE()`,
# `=FALSE()` or `=` on booleans, `=NA()` or `=` on error constants. With the original's BIFF
# census at hand only those at cells that had no FORMULA record are dropped (real `=NA()`
# formulas exist); without it, the three that are never worth keeping are dropped everywhere.
ARTEFACT_CANDIDATES = frozenset({"=", "=TRUE()", "=FALSE()", "=NA()"})
ARTEFACTS_WITHOUT_CENSUS = frozenset({"=", "=TRUE()", "=FALSE()"})


class CellConverter:
    """One parsed openpyxl cell dict -> our `Cell` (None when it holds nothing at all); the
    ranges of the array formulas it met are kept in `arrays`."""

    def __init__(
        self,
        styles: StyleTable,
        wb,
        converted: bool,
        original_formulas: frozenset[tuple[int, int]] | None = None,
    ) -> None:
        self.styles = styles
        self.date_styles = wb._date_formats
        self.timedelta_styles = wb._timedelta_formats
        self.epoch = wb.epoch
        self.converted = converted
        self.original_formulas = original_formulas
        self.arrays: list[Region] = []
        self.table_ids: list[str] = []  # the sheet's `<tableParts>` ids, set by its reader

    def __call__(self, parsed: dict) -> Cell | None:
        style = self.styles[parsed["style_id"] or 0]
        kind = parsed["data_type"]
        value = parsed["value"]
        if kind == "f":
            return self._formula_cell(parsed, value, style)
        if value is None or value == "":
            return None if style is DEFAULT_STYLE else Cell(style=style)
        if kind == "n":
            return Cell(float(value), "number", style=style)
        if kind == "s":
            return Cell(str(value), "text", style=style)
        if kind == "d":
            return Cell(_iso(value), "date", style=style)
        if kind == "b":
            return Cell(bool(value), "bool", style=style)
        if kind == "e":
            return Cell(str(value), "error", style=style)
        return Cell(str(value), "text", style=style)

    def _formula_cell(self, parsed: dict, formula, style: CellStyle) -> Cell:
        is_array = isinstance(formula, ArrayFormula)
        if is_array:
            text = formula.text or "="
            self.arrays.append(_array_region(formula.ref, parsed["row"] - 1, parsed["column"] - 1))
        elif isinstance(formula, DataTableFormula):
            text = _data_table_text(formula)
        else:
            text = str(formula)
        value, kind = self._cached(parsed)
        if self.converted and self._is_artefact(text, parsed["row"] - 1, parsed["column"] - 1):
            return Cell(value, kind, style=style)
        return Cell(value, kind, formula=text, array_formula=is_array, style=style)

    def _is_artefact(self, text: str, row: int, col: int) -> bool:
        if self.original_formulas is None:
            return text in ARTEFACTS_WITHOUT_CENSUS
        return text in ARTEFACT_CANDIDATES and (row, col) not in self.original_formulas

    def _cached(self, parsed: dict):
        raw, t = parsed["cached"], parsed["cached_type"]
        if t in ("str", "inlineStr") and raw is not None:
            return raw, "text"  # may be "": a formula that returned the empty string
        if not raw:
            return None, "empty"
        if t == "b":
            return raw.strip() not in ("0", "false", ""), "bool"
        if t == "e":
            return raw, "error"
        if t == "d":
            return raw, "date"
        try:
            number = float(raw)
        except ValueError:
            return raw, "text"
        style_id = parsed["style_id"] or 0
        if style_id in self.date_styles:
            try:
                moment = from_excel(number, self.epoch, style_id in self.timedelta_styles)
            except (OverflowError, ValueError):
                return number, "number"
            return _iso(moment), "date"
        return number, "number"


def _array_region(ref, row: int, col: int) -> Region:
    """The cells an array formula fills (`ref="D5:D12"`); its own cell when the ref is
    missing or damaged."""
    try:
        left, top, right, bottom = range_boundaries(str(ref))
    except (TypeError, ValueError):
        return Region(row, col, row, col)
    if None in (left, top, right, bottom) or (top - 1, left - 1) != (row, col):
        return Region(row, col, row, col)
    return Region(row, col, bottom - 1, right - 1)


def _iso(value) -> str:
    """ISO text of a date/time value; a datetime at midnight is written as the date alone."""
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0):
            return value.date().isoformat()
        return value.isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        seconds = int(value.total_seconds())
        sign, seconds = ("-" if seconds < 0 else ""), abs(seconds)
        return f"{sign}{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return str(value)


def _data_table_text(formula: DataTableFormula) -> str:
    """Excel shows a what-if data table as `{=TABLE(row_input, column_input)}`."""
    r1, r2 = formula.r1 or "", formula.r2 or ""
    if formula.dt2D:
        return f"=TABLE({r1},{r2})"
    return f"=TABLE({r1},)" if formula.dtr else f"=TABLE(,{r1})"
