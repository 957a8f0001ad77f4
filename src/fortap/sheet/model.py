"""The cell grid of one worksheet: `Cell`, `CellStyle`, `Region`, `Sheet`, `Workbook`.

Coordinates are 0-based `(row, col)` everywhere inside fortap; A1 text appears only at the
edges (messages, reports, formula text). A `Sheet` is sparse: cells that are neither valued,
formula-bearing nor styled are absent and read back as `EMPTY`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

CellKind = Literal["empty", "text", "number", "bool", "date", "error"]


def column_letter(col: int) -> str:
    """0-based column index -> Excel letters (0 -> A, 26 -> AA)."""
    letters = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def a1(row: int, col: int, absolute: bool = False) -> str:
    """0-based (row, col) -> A1 text (`C3`; `$C$3` when `absolute`)."""
    if absolute:
        return f"${column_letter(col)}${row + 1}"
    return f"{column_letter(col)}{row + 1}"


@dataclass(frozen=True, slots=True)
class CellStyle:
    """What the format says about a cell; the features TUTA's format vector is built from."""

    number_format: str = "General"
    bold: bool = False
    italic: bool = False
    font_color: str | None = None  # "FF000000" ARGB; None = automatic or theme colour
    fill_color: str | None = None  # solid fill ARGB; None = no fill
    border_top: bool = False
    border_bottom: bool = False
    border_left: bool = False
    border_right: bool = False
    h_align: str | None = None  # "left", "center", "right", ... ; None = general
    indent: int = 0  # alignment indent level


DEFAULT_STYLE = CellStyle()


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell: its cached value, its formula text if any, and its style.

    `value` is what the workbook stores (for a formula cell, the value last computed by the
    spreadsheet program). Dates are ISO strings with `kind == "date"`; errors are their text
    (`#DIV/0!`) with `kind == "error"`.
    """

    value: str | float | bool | None = None
    kind: CellKind = "empty"
    formula: str | None = None  # "=SUM(B2:B5)"; None when the cell holds a constant
    array_formula: bool = False  # entered with Ctrl+Shift+Enter (t="array")
    style: CellStyle = DEFAULT_STYLE

    @property
    def is_empty(self) -> bool:
        return self.kind == "empty" and self.formula is None

    @property
    def text(self) -> str:
        """The string the tokenizer sees: the stored value, integral floats without `.0`."""
        v = self.value
        if v is None:
            return ""
        if isinstance(v, bool):
            return "TRUE" if v else "FALSE"
        if isinstance(v, float):
            return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
        return str(v)


EMPTY = Cell()


@dataclass(frozen=True, slots=True, order=True)
class Region:
    """A rectangle of cells, 0-based and inclusive on both ends."""

    top: int
    left: int
    bottom: int
    right: int

    def __post_init__(self) -> None:
        if self.top > self.bottom or self.left > self.right or self.top < 0 or self.left < 0:
            raise ValueError(f"Region: bad bounds {self.top, self.left, self.bottom, self.right}")

    @property
    def n_rows(self) -> int:
        return self.bottom - self.top + 1

    @property
    def n_cols(self) -> int:
        return self.right - self.left + 1

    @property
    def a1(self) -> str:
        start, end = a1(self.top, self.left), a1(self.bottom, self.right)
        return start if start == end else f"{start}:{end}"

    def contains(self, row: int, col: int) -> bool:
        return self.top <= row <= self.bottom and self.left <= col <= self.right

    def shift(self, d_row: int, d_col: int) -> Region:
        return Region(self.top + d_row, self.left + d_col, self.bottom + d_row, self.right + d_col)


@dataclass(frozen=True, slots=True)
class TableDef:
    """An Excel table (Insert > Table, `xl/tables/tableN.xml`): its name, cells and columns.

    `region` covers the header row(s), the data rows and the totals row(s); structured
    references (`Sales[Qty]`, `Sales[[#This Row],[Qty]]`) name its parts
    (`fortap.formula.structured`)."""

    name: str  # the display name formulas use
    region: Region
    columns: tuple[str, ...]  # one header per column of `region`, left to right
    header_rows: int = 1
    totals_rows: int = 0

    @property
    def data_rows(self) -> tuple[int, int]:
        """First and last 0-based sheet row of the data (last < first when it has none)."""
        return self.region.top + self.header_rows, self.region.bottom - self.totals_rows


@dataclass(frozen=True)
class Sheet:
    """One worksheet as a sparse grid. `n_rows` x `n_cols` is the used bounding box from A1."""

    name: str
    book: str  # path of the workbook file it came from
    n_rows: int
    n_cols: int
    cells: Mapping[tuple[int, int], Cell] = field(default_factory=dict)
    merged: tuple[Region, ...] = ()
    hidden_rows: frozenset[int] = frozenset()
    hidden_cols: frozenset[int] = frozenset()
    tables: tuple[TableDef, ...] = ()  # the Excel tables defined on this sheet
    arrays: tuple[Region, ...] = ()  # each array formula's range; its top-left cell holds it

    def cell(self, row: int, col: int) -> Cell:
        return self.cells.get((row, col), EMPTY)

    def formula_cells(self) -> Iterator[tuple[int, int, Cell]]:
        for (r, c), cell in self.cells.items():
            if cell.formula is not None:
                yield r, c, cell

    def values_only(self) -> Sheet:
        """This sheet as an export or a paste shows it: every formula replaced by its cached
        value (a formula without one leaves an empty cell), styles kept."""
        cells = {rc: replace(cell, formula=None, array_formula=False)
                 for rc, cell in self.cells.items()}  # fmt: skip
        return replace(self, cells=cells, arrays=())


@dataclass(frozen=True)
class Workbook:
    """Every sheet of one file. `converted_from` names the original when LibreOffice converted it.

    `skipped_sheets` lists `(sheet name, reason)` for sheets that were not read (chartsheets).
    """

    path: str
    sheets: tuple[Sheet, ...]
    converted_from: str | None = None
    skipped_sheets: tuple[tuple[str, str], ...] = ()
