"""Sheet-writing primitives for the sample workbooks: titles, notes, header bands, labels, values.

Rows and columns here are 1-based, as openpyxl and a person reading the sheet count them; the
rest of fortap is 0-based. A value that starts with `=` is written as a formula. The styles copy
what people do by hand: bold header bands on a light fill with borders, bold group rows, indented
(or space-padded) child labels, totals with a thin rule above and a double rule below.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

HEADER_FILL = PatternFill("solid", fgColor="FFD9E1F2")
GROUP_FILL = PatternFill("solid", fgColor="FFF2F2F2")
THIN = Side(style="thin")
DOUBLE = Side(style="double")
BOXED = Border(top=THIN, bottom=THIN, left=THIN, right=THIN)

INT = "#,##0"
MONEY = "#,##0.00"
PCT = "0.0%"
ONE_DP = "0.0"
DATE = "yyyy-mm-dd"


def col(c: int) -> str:
    """1-based column number -> letters (1 -> A)."""
    return get_column_letter(c)


def title(ws: Worksheet, row: int, text: str, *, size: int = 14) -> None:
    """A title line in column A: bold, larger, unbordered."""
    ws.cell(row, 1, text).font = Font(bold=True, size=size)


def note(ws: Worksheet, row: int, text: str, *, column: int = 1) -> None:
    """A footnote or subtitle: italic, small."""
    ws.cell(row, column, text).font = Font(italic=True, size=9)


def header(
    ws: Worksheet, row: int, column: int, text: str | int, *, rows: int = 1, cols: int = 1
) -> None:
    """One header cell; spans `rows` x `cols` through a merged region like a hand-made band."""
    cell = ws.cell(row, column, text)
    cell.font = Font(bold=True)
    cell.fill = HEADER_FILL
    cell.alignment = Alignment(horizontal="center", vertical="center", wrap_text=True)
    for r in range(row, row + rows):
        for c in range(column, column + cols):
            ws.cell(r, c).border = BOXED
            ws.cell(r, c).fill = HEADER_FILL
    if rows > 1 or cols > 1:
        ws.merge_cells(
            start_row=row, start_column=column, end_row=row + rows - 1, end_column=column + cols - 1
        )


def header_row(
    ws: Worksheet, row: int, column: int, spans: Iterable[tuple[str | int, int]]
) -> None:
    """A band of headers left to right; each `(text, span)` covers `span` columns."""
    for text, span in spans:
        header(ws, row, column, text, cols=span)
        column += span


def label(
    ws: Worksheet,
    row: int,
    column: int,
    text: str,
    *,
    level: int = 0,
    bold: bool = False,
    spaces: bool = False,
) -> None:
    """A left-header label indented `level` steps: by alignment indent, or by leading spaces."""
    cell = ws.cell(row, column, ("  " * level + text) if spaces else text)
    if level and not spaces:
        cell.alignment = Alignment(indent=level)
    if bold:
        cell.font = Font(bold=True)
        cell.fill = GROUP_FILL


def put(ws: Worksheet, row: int, column: int, value, fmt: str | None = None, *, bold: bool = False):
    """One value or formula with an optional number format."""
    cell = ws.cell(row, column, value)
    if fmt:
        cell.number_format = fmt
    if bold:
        cell.font = Font(bold=True)
    return cell


def put_row(ws: Worksheet, row: int, column: int, values: Sequence, fmt: str | None = None) -> None:
    """Values left to right from `column`."""
    for i, value in enumerate(values):
        put(ws, row, column + i, value, fmt)


def fill_down(
    ws: Worksheet,
    column: int,
    rows: Iterable[int],
    template: str,
    fmt: str | None = None,
    *,
    bold: bool = False,
) -> None:
    """A formula dragged down: `{r}` in `template` becomes each row number."""
    for r in rows:
        put(ws, r, column, template.format(r=r), fmt, bold=bold)


def fill_right(
    ws: Worksheet,
    row: int,
    columns: Iterable[int],
    template: str,
    fmt: str | None = None,
    *,
    bold: bool = False,
) -> None:
    """A formula dragged right: `{c}` in `template` becomes each column's letters."""
    for c in columns:
        put(ws, row, c, template.format(c=col(c)), fmt, bold=bold)


def total_rule(ws: Worksheet, row: int, first: int, last: int) -> None:
    """A totals row: bold, a thin rule above and a double rule below."""
    for c in range(first, last + 1):
        cell = ws.cell(row, c)
        cell.font = Font(bold=True)
        cell.border = Border(top=THIN, bottom=DOUBLE)


def widths(ws: Worksheet, first: float, rest: float, n_cols: int) -> None:
    """Column A wide enough for labels, the others for numbers."""
    ws.column_dimensions["A"].width = first
    for c in range(2, n_cols + 1):
        ws.column_dimensions[col(c)].width = rest
