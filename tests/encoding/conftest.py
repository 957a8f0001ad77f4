"""Fixtures: one tokenizer over the installed MiniLM vocabulary, and the literal sales table.

The sales table (sheet B2:E4 of sales.xlsx), a two-level top header over one data row:

|   | A (B)           | B (C)        | C (D) | D (E)              |
|---|-----------------|--------------|-------|--------------------|
| 0 | Region (A0:A1)  | Sales 2019 (merged B0:C0) |  | Total (D0:D1)   |
| 1 |                 | Jan          | Feb   |                    |
| 2 | North           | 1200         | 58.5  | =SUM(C4:D4) -> 1258.5 |

Top tree: "Sales 2019" over "Jan" and "Feb", and "Total"; left tree: "North".
"""

from __future__ import annotations

import pytest

from fortap.sheet.model import Cell, CellStyle, Region
from fortap.table.model import HeaderNode, Table

HEADER = CellStyle(bold=True, border_bottom=True)
EMPTY = Cell()


def header(text: str) -> Cell:
    return Cell(text, "text", style=HEADER)


def number(value: float, formula: str | None = None) -> Cell:
    return Cell(value, "number", formula=formula)


def sales_table() -> Table:
    return Table(
        book="sales.xlsx",
        sheet="Sheet1",
        region=Region(1, 1, 3, 4),
        cells=(
            (header("Region"), header("Sales 2019"), EMPTY, header("Total")),
            (EMPTY, header("Jan"), header("Feb"), EMPTY),
            (Cell("North", "text"), number(1200.0), number(58.5), number(1258.5, "=SUM(C4:D4)")),
        ),
        merged=(Region(0, 0, 1, 0), Region(0, 1, 0, 2), Region(0, 3, 1, 3)),
        top_header_rows=2,
        left_header_cols=1,
        top_root=HeaderNode(
            -1, -1, (HeaderNode(0, 1, (HeaderNode(1, 1), HeaderNode(1, 2))), HeaderNode(0, 3))
        ),
        left_root=HeaderNode(-1, -1, (HeaderNode(2, 0),)),
        context=("Sales by region",),
    )


@pytest.fixture
def table() -> Table:
    return sales_table()
