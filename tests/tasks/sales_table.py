"""The sales table (sheet B3:F8): quarter columns, row and column totals, a change column,
absolute references and a merged header; the augmentation tests' literal table."""

from __future__ import annotations

from fortap.sheet.model import EMPTY, Cell, Region
from fortap.table.model import HeaderNode, Table

TOP, LEFT = 2, 1  # the table sits at sheet B3


def text(value: str) -> Cell:
    return Cell(value, "text")


def num(value: float, formula: str | None = None) -> Cell:
    return Cell(value, "number", formula=formula)


def sales_table() -> Table:
    """Sheet B3:F8 (cached values as the formulas give them)::

        |   | B      | C               | D               | E                  | F
        | 3 | Region | Q1              | Q2              | Total              | Change
        | 4 | North  | 10              | 12              | =SUM(C4:D4)        | =D4-C4
        | 5 | South  | 7.5             | 8.25            | =SUM(C5:D5)        | =(D5-C5)/C5
        | 6 | East   | -3              | 4               | =C6+D6             | =ROUND(D6*2,1)
        | 7 | total  | =SUM(C4:C6)     | =SUM(D4:D6)     | =SUM($C$4:$D$6)    | =MAX(F4:F6)
        | 8 | AVG    | =AVERAGE(C4:C6) | =AVERAGE(D4:D6) | =AVERAGE(E4:E6)*1  |

    One header row (merged over Q1:Q2 as well), one header column."""
    rows = (
        (text("Region"), text("Q1"), text("Q2"), text("Total"), text("Change")),
        (text("North"), num(10.0), num(12.0), num(22.0, "=SUM(C4:D4)"), num(2.0, "=D4-C4")),
        (text("South"), num(7.5), num(8.25), num(15.75, "=SUM(C5:D5)"),
         num(0.1, "=(D5-C5)/C5")),
        (text("East"), num(-3.0), num(4.0), num(1.0, "=C6+D6"), num(8.0, "=ROUND(D6*2,1)")),
        (text("total"), num(14.5, "=SUM(C4:C6)"), num(24.25, "=SUM(D4:D6)"),
         num(38.75, "=SUM($C$4:$D$6)"), num(8.0, "=MAX(F4:F6)")),
        (text("AVG"), num(14.5 / 3, "=AVERAGE(C4:C6)"), num(24.25 / 3, "=AVERAGE(D4:D6)"),
         num(38.75 / 3, "=AVERAGE(E4:E6)*1"), EMPTY),
    )  # fmt: skip
    return Table(
        book="sales.xlsx",
        sheet="Sheet1",
        region=Region(TOP, LEFT, TOP + 5, LEFT + 4),
        cells=rows,
        merged=(Region(0, 1, 0, 2),),
        top_header_rows=1,
        left_header_cols=1,
        top_root=HeaderNode(-1, -1, tuple(HeaderNode(0, c) for c in range(1, 5))),
        left_root=HeaderNode(-1, -1, tuple(HeaderNode(r, 0) for r in range(1, 6))),
    )
