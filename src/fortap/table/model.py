"""One table region of a sheet: `Table` and its header trees (`HeaderNode`).

A `Table` is dense and table-relative: `cells[r][c]` is row `r`, column `c` of the region,
`region` places it in its sheet. The top tree's nodes are top-header cells (a parent spans its
children's columns); the left tree's nodes are left-header cells (a parent governs its
children's rows). Both roots sit at (-1, -1); `HeaderNode` lives in `fortap.table.tree`, which
reads a table only through its `TreeTable` protocol, so the two modules import one way. Every cell's tree coordinates come from
`fortap.table.tree.cell_coordinates`, cached on the table as `coordinates`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from fortap.sheet.model import Cell, Region
from fortap.table.tree import CoordinateGrid, HeaderNode, cell_coordinates

ROOT = HeaderNode(-1, -1)


@dataclass(frozen=True)
class Table:
    """A detected table: cells, merged regions, header counts, header trees and context text."""

    book: str  # workbook path
    sheet: str
    region: Region  # where the table lies in its sheet
    cells: tuple[tuple[Cell, ...], ...]  # (n_rows, n_cols), table-relative
    merged: tuple[Region, ...] = ()  # table-relative
    top_header_rows: int = 0
    left_header_cols: int = 0
    top_root: HeaderNode = ROOT
    left_root: HeaderNode = ROOT
    context: tuple[str, ...] = ()  # title first, then notes

    def __post_init__(self) -> None:
        if len(self.cells) != self.region.n_rows or any(
            len(row) != self.region.n_cols for row in self.cells
        ):
            raise ValueError(
                f"Table: cells are not {self.region.n_rows}x{self.region.n_cols} "
                f"({self.sheet}!{self.region.a1} of {self.book})"
            )

    @property
    def n_rows(self) -> int:
        return self.region.n_rows

    @property
    def n_cols(self) -> int:
        return self.region.n_cols

    def cell(self, row: int, col: int) -> Cell:
        return self.cells[row][col]

    @cached_property
    def coordinates(self) -> CoordinateGrid:
        """Top and left tree coordinates of every cell (computed once)."""
        return cell_coordinates(self)
