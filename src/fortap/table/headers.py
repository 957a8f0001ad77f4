"""How many rows at the top and columns at the left of a table are headers.

Top header rows: the rows above the first row holding a measured value (a number that is not
a year, a number typed as text, a date or a formula), stopping early at a *section row* (a label
in the first column with nothing on the data side: it starts the left hierarchy) or a *unit row*
(one merged label spanning every data column, like "percent" under the column headers, with
values or row labels right below it).
Year-like numbers ("2017") are labels, so a row of years stays a header row; below the first row
a placeholder ("-", "..", "x") counts as a value. Merged cells that
start in the header and reach below pull those rows into the header. A table without any
measured value falls back to format: the leading rows whose cells are all bold, filled or
bordered below; else one row.

Left header columns: the first column when most of its data cells are labels; then each next
column whose header is a single cell, one column wide, with nothing under it in the header (a
"stub" column such as "season" or "team"), and whose data cells are labels too — or codes: a
header saying "code", "id", "no." over integers or short texts ("NAICS code": 5415).

These rules were written while looking at HiTab and SAUS, the two answer keys `bench/headers.py`
scores against; there is no separate development set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fortap.sheet.model import Cell
from fortap.table.layout import Layout, is_label, is_numeric, is_placeholder


@dataclass(frozen=True)
class HeaderConfig:
    """Limits and cues for header detection and header trees."""

    max_header_rows: int = 6  # never more top header rows than this
    max_header_cols: int = 4  # never more left header columns than this
    label_share: float = (
        0.5  # a column is a label column when at least this share of its data cells are labels
    )
    spaces_per_indent: int = 2  # leading spaces that make one indent level
    max_tree_depth: int = 4  # deeper header nodes are attached higher up (the coordinate levels)
    join_repeated: bool = True  # adjacent unmerged header cells repeating one label form one parent

    def __post_init__(self) -> None:
        if self.max_header_rows < 0:
            raise ValueError(
                f"HeaderConfig.max_header_rows: must be >= 0, got {self.max_header_rows}"
            )
        if self.max_header_cols < 0:
            raise ValueError(
                f"HeaderConfig.max_header_cols: must be >= 0, got {self.max_header_cols}"
            )
        if not 0.0 <= self.label_share < 1.0:
            raise ValueError(f"HeaderConfig.label_share: must be in [0, 1), got {self.label_share}")
        if self.spaces_per_indent < 1:
            raise ValueError(
                f"HeaderConfig.spaces_per_indent: must be >= 1, got {self.spaces_per_indent}"
            )
        if self.max_tree_depth < 1:
            raise ValueError(
                f"HeaderConfig.max_tree_depth: must be >= 1, got {self.max_tree_depth}"
            )


def count_header_rows(layout: Layout, cfg: HeaderConfig = HeaderConfig()) -> int:
    """Number of top header rows (rules in the module docstring)."""
    n_rows, n_cols = layout.n_rows, layout.n_cols
    if n_rows < 2:
        return 0
    data_start = 1 if n_cols > 1 else 0
    header, found_data, content_rows, limit = 0, False, 0, n_rows - 1
    for r in range(n_rows):
        anchors = layout.anchors(r)
        if header > 0 and _ordinal_row(layout, r, anchors):
            header = r + 1  # column numbers "1 2 3" under a spanning header
            continue
        if any(_is_value(layout.cell(r, c), r) for c in anchors):
            found_data = True
            break
        content_rows += bool(anchors)
        if content_rows > cfg.max_header_rows or r == n_rows - 1:
            limit = r
            break
        data_side = [c for c in anchors if c >= data_start]
        if not data_side:
            if header > 0 and 0 in anchors:
                found_data = True
                break  # a section row: a first-column label over empty data cells
            continue  # a blank row decides nothing
        if header > 0 and len(data_side) == 1:
            reg = layout.region(r, data_side[0])
            spans_all = reg.left <= data_start and reg.right >= n_cols - 1
            if spans_all and n_cols - data_start > 1 and _rows_start_below(layout, reg.bottom + 1):
                found_data = True
                break  # a unit row spanning every data column
        header = r + 1
    if not found_data:  # a table of text: format decides, merges from the first rows extend it
        return _close_merges(layout, _format_header_rows(layout, limit), limit, 0)
    return _close_merges(layout, header, limit, data_start)


def _ordinal_row(layout: Layout, row: int, anchors: list[int]) -> bool:
    """Data-side cells are runs 1, 2, 3, ... (column numbers), with nothing in the first column."""
    if not anchors or anchors[0] == 0 or len(anchors) < 2:
        return False
    prev = 0.0
    for c in anchors:
        v = layout.cell(row, c).value
        if not isinstance(v, float) or layout.cell(row, c).kind != "number":
            return False
        if v not in (prev + 1, 1.0):
            return False
        prev = v
    return True


def _rows_start_below(layout: Layout, row: int) -> bool:
    """The row holds a value or a first-column label: the header is over above it."""
    if row >= layout.n_rows:
        return True
    anchors = layout.anchors(row)
    return (bool(anchors) and anchors[0] == 0) or any(
        _is_value(layout.cell(row, c), row) for c in anchors
    )


def _is_value(cell: Cell, row: int) -> bool:
    """A measured value; below the first row a placeholder ("-", "..") stands for one too.

    One-letter marks ("x", "F", "E") are left out here: they are also column labels.
    """
    if is_numeric(cell):
        return True
    text = cell.text.strip()
    return row > 0 and is_placeholder(cell) and (len(text) > 1 or text in "-–—")


def _format_header_rows(layout: Layout, limit: int) -> int:
    """Leading rows whose non-empty cells all look like headers by format; at least one."""
    count = 0
    for r in range(limit):
        cells = [layout.cell(r, c) for c in layout.anchors(r)]
        if not cells or not all(
            c.style.bold or c.style.fill_color or c.style.border_bottom for c in cells
        ):
            break
        count = r + 1
    return max(count, 1)


def _close_merges(layout: Layout, header: int, limit: int, data_start: int) -> int:
    """Grow `header` until no merged region on the data side starting above it reaches below it.

    A merged corner cell in the first column may reach down over a unit row ("percent") that
    is not a header row, so first-column merges do not count.
    """
    changed = True
    while changed and header > 0:
        changed = False
        for reg in layout.merged:
            if (
                reg.right >= data_start
                and reg.top < header <= reg.bottom
                and reg.bottom + 1 <= limit
            ):
                header, changed = reg.bottom + 1, True
    return header


def count_header_cols(layout: Layout, header_rows: int, cfg: HeaderConfig = HeaderConfig()) -> int:
    """Number of left header columns (rules in the module docstring)."""
    n_cols = layout.n_cols
    if n_cols < 2 or header_rows >= layout.n_rows or cfg.max_header_cols == 0:
        return 0
    if not (_label_column(layout, 0, header_rows, cfg) or _index_column(layout, 0, header_rows)):
        return 0
    count = 1
    while count < min(n_cols - 1, cfg.max_header_cols):
        c = count
        if not _stub_header(layout, c, header_rows):
            break
        if not (_label_column(layout, c, header_rows, cfg) or _code_column(layout, c, header_rows)):
            break
        count += 1
    return count


def _label_column(layout: Layout, col: int, header_rows: int, cfg: HeaderConfig) -> bool:
    """Most of the column's non-empty data cells are labels."""
    cells = [
        layout.cell(r, col)
        for r in range(header_rows, layout.n_rows)
        if not layout.is_covered(r, col) and not layout.cell(r, col).is_empty
    ]
    if not cells:
        return False
    return sum(is_label(c) for c in cells) > cfg.label_share * len(cells)


def _index_column(layout: Layout, col: int, header_rows: int) -> bool:
    """Row numbers or ranks: at least three integers from 0-2 up, mostly in steps of one."""
    values = []
    for r in range(header_rows, layout.n_rows):
        cell = layout.cell(r, col)
        if cell.is_empty or is_placeholder(cell):
            continue
        v = cell.value
        if cell.kind != "number" or not isinstance(v, float) or not v.is_integer():
            return False
        values.append(v)
    if len(values) < 3 or values[0] > 2 or values[-1] > layout.n_rows + 1:
        return False
    steps = [b - a for a, b in zip(values, values[1:], strict=False)]
    return min(steps) >= 0 and sum(step == 1 for step in steps) * 5 >= 4 * len(steps)


# "NAICS code", "FIPS", "ID", "No." — but not "No. of farms", which heads counts.
_CODE_HEADER = re.compile(r"^\s*(no\.?|#|id)\s*$|\b(code|codes|naics|sic|fips)\b", re.I)


def _code_column(layout: Layout, col: int, header_rows: int) -> bool:
    """Identifiers: a header saying "code" / "id" / "no." over integers or short texts."""
    header = next(
        (layout.cell(r, col) for r in range(header_rows) if not layout.cell(r, col).is_empty),
        None,
    )
    if header is None or not _CODE_HEADER.search(header.text):
        return False
    for r in range(header_rows, layout.n_rows):
        v = layout.cell(r, col).value
        if isinstance(v, float) and not v.is_integer():
            return False
    return True


def _stub_header(layout: Layout, col: int, header_rows: int) -> bool:
    """The column's header is one cell, one column wide, with no sub-header under it."""
    if header_rows == 0:
        return False
    cells = [
        r
        for r in range(header_rows)
        if not layout.is_covered(r, col) and not layout.cell(r, col).is_empty
    ]
    if len(cells) != 1:
        return False
    reg = layout.region(cells[0], col)
    return reg.left == col and reg.right == col
