"""A literal sales table with formulas, for the corpus tests.

Sheet1 at A1, one header row and one header column (sheet addresses in the cells):

|   | 0 (A) | 1 (B)   | 2 (C)       | 3 (D)   | 4 (E)       |
|---|-------|---------|-------------|---------|-------------|
| 0 | item  | 2019    | 2020        | 2021    | total       |
| 1 | north | 10      | 20          | 5       | =B2+C2      |
| 2 | south | 30      | 40          | 6       | =SUM(B3:D3) |
| 3 | total | =B2+B3  | =SUM(C2:C3) | =D2-D3  | =E2+E3      |
"""

from __future__ import annotations

from fortap.sheet.model import Cell, Region
from fortap.table.model import HeaderNode, Table


def text(value: str) -> Cell:
    return Cell(value, "text")


def number(value: float, formula: str | None = None) -> Cell:
    return Cell(value, "number", formula)


def sales_table(book: str = "sales.xlsx", sheet: str = "Sheet1") -> Table:
    return Table(
        book=book,
        sheet=sheet,
        region=Region(0, 0, 3, 4),
        cells=(
            (text("item"), number(2019.0), number(2020.0), number(2021.0), text("total")),
            (text("north"), number(10.0), number(20.0), number(5.0), number(30.0, "=B2+C2")),
            (text("south"), number(30.0), number(40.0), number(6.0), number(76.0, "=SUM(B3:D3)")),
            (
                text("total"),
                number(40.0, "=B2+B3"),
                number(60.0, "=SUM(C2:C3)"),
                number(-1.0, "=D2-D3"),
                number(106.0, "=E2+E3"),
            ),
        ),
        top_header_rows=1,
        left_header_cols=1,
        top_root=HeaderNode(-1, -1, tuple(HeaderNode(0, c) for c in range(1, 5))),
        left_root=HeaderNode(-1, -1, tuple(HeaderNode(r, 0) for r in range(1, 4))),
    )
