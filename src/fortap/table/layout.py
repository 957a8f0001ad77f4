"""A table's cell grid as the header rules read it: merged cells, and what a cell looks like.

`Layout` answers "which merged region holds this cell" and "is this the anchor (top-left) of
its region"; the `is_*` functions classify one cell from its value and style. Header rows,
header columns and both header trees are decided from these alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from fortap.sheet.model import Cell, Region

# Numbers typed as text: "1,234", "(12.5)", "-3", "45%", "$1,200", "12.3e" (footnote), "190 cm".
_NUMBER_TEXT = re.compile(r"^[\s$€£¥(+\-−–]*\d[\d,\s]*(\.\d+)?\s*(%|\s*[a-zA-Z]{1,3}\.?)?\)?$")
# Year-like labels: "2017", "2016-17", "2016/2017", "2017r", "fy 2018", "2017p".
_YEAR_TEXT = re.compile(r"^(fy\s*)?(1[89]|20)\d\d(\s*[-/–]\s*(\d{2}|\d{4}))?\s*[a-z*]?$", re.I)
# Statistical placeholders that stand where a number would: "..", "x", "-", "n/a", "none", "?".
_PLACEHOLDER = re.compile(
    r"^(\.{2,3}|x|f|e|-|—|–|n/?a|none|\?+|\(na\)|\(x\)|\(d\)|\(z\)|\(s\)|\*+)$", re.I
)


def is_year(cell: Cell) -> bool:
    """An integral number 1800..2100 or a year-like text ("2016-17", "2017r")."""
    v = cell.value
    if cell.kind == "number" and isinstance(v, float):
        return v.is_integer() and 1800 <= v <= 2100
    return cell.kind == "text" and bool(_YEAR_TEXT.match(str(v).strip()))


def is_numeric(cell: Cell) -> bool:
    """A measured value: a number (not a year), a number typed as text, a formula or a date."""
    if cell.formula is not None and cell.kind != "text":
        return True
    if cell.kind in ("number", "bool", "date"):
        return not is_year(cell)
    if cell.kind == "text":
        text = str(cell.value).strip()
        return bool(_NUMBER_TEXT.match(text)) and not _YEAR_TEXT.match(text)
    return False


def is_placeholder(cell: Cell) -> bool:
    """A statistical "no value" mark such as `..`, `x`, `-`."""
    return cell.kind == "text" and bool(_PLACEHOLDER.match(str(cell.value).strip()))


def is_label(cell: Cell) -> bool:
    """Text a person reads as a name (not a number, not a placeholder); years count as labels."""
    if cell.is_empty or cell.kind == "error":
        return False
    if is_year(cell):
        return True
    return cell.kind == "text" and not is_numeric(cell) and not is_placeholder(cell)


def indent_level(cell: Cell, spaces_per_level: int = 2) -> int:
    """Indentation from the alignment indent, else from leading spaces of the text."""
    if cell.style.indent:
        return cell.style.indent
    if cell.kind == "text" and isinstance(cell.value, str):
        stripped = cell.value.lstrip(" \u00a0")
        return (len(cell.value) - len(stripped)) // spaces_per_level
    return 0


@dataclass
class Layout:
    """Dense cells plus merged regions (table-relative), with a cell -> region lookup."""

    cells: Sequence[Sequence[Cell]]
    merged: Sequence[Region] = ()
    _region_at: dict[tuple[int, int], Region] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._region_at = {}
        for reg in self.merged:
            for r in range(reg.top, min(reg.bottom, self.n_rows - 1) + 1):
                for c in range(reg.left, min(reg.right, self.n_cols - 1) + 1):
                    self._region_at[(r, c)] = reg

    @property
    def n_rows(self) -> int:
        return len(self.cells)

    @property
    def n_cols(self) -> int:
        return len(self.cells[0]) if self.cells else 0

    def cell(self, row: int, col: int) -> Cell:
        return self.cells[row][col]

    def region(self, row: int, col: int) -> Region:
        """The merged region holding (row, col), or the cell itself."""
        return self._region_at.get((row, col), Region(row, col, row, col))

    def is_covered(self, row: int, col: int) -> bool:
        """True for a cell hidden inside a merged region (not its top-left anchor)."""
        reg = self._region_at.get((row, col))
        return reg is not None and (reg.top, reg.left) != (row, col)

    def anchors(self, row: int, start_col: int = 0) -> list[int]:
        """Columns of row `row` (from `start_col`) holding a non-empty anchor cell."""
        return [
            c
            for c in range(start_col, self.n_cols)
            if not self.is_covered(row, c) and not self.cells[row][c].is_empty
        ]
