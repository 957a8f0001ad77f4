"""The expense table (sheet A1:D4 of expenses.xlsx): row and column totals by formula.

|   | A     | B            | C            | D            |
|---|-------|--------------|--------------|--------------|
| 1 | item  | jan          | feb          | total        |
| 2 | rent  | 100          | 110          | =B2+C2       |
| 3 | food  | 50           | 60           | =B3+C3       |
| 4 | total | =SUM(B2:B3)  | =SUM(C2:C3)  | `corner`     |

`corner` is D4's formula, `=SUM(D2:D3)` unless a test asks for another; placed at another
(top, left) of its sheet, every address moves with the table.
"""

from __future__ import annotations

import torch

from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.sheet.model import Cell, Region, a1
from fortap.table.model import HeaderNode, Table


def text(value: str) -> Cell:
    return Cell(value, "text")


def number(value: float, formula: str | None = None) -> Cell:
    return Cell(value, "number", formula=formula)


def expense_table(corner: str | None = None, top: int = 0, left: int = 0) -> Table:
    """The table at sheet (top, left); its formulas' addresses move with it."""

    def at(r: int, c: int) -> str:
        return a1(top + r, left + c)

    corner = corner or f"=SUM({at(1, 3)}:{at(2, 3)})"
    return Table(
        book="expenses.xlsx",
        sheet="Sheet1",
        region=Region(top, left, top + 3, left + 3),
        cells=(
            (text("item"), text("jan"), text("feb"), text("total")),
            (text("rent"), number(100.0), number(110.0), number(210.0, f"={at(1, 1)}+{at(1, 2)}")),
            (text("food"), number(50.0), number(60.0), number(110.0, f"={at(2, 1)}+{at(2, 2)}")),
            (
                text("total"),
                number(150.0, f"=SUM({at(1, 1)}:{at(2, 1)})"),
                number(170.0, f"=SUM({at(1, 2)}:{at(2, 2)})"),
                number(320.0, corner),
            ),
        ),  # fmt: skip
        top_header_rows=1,
        left_header_cols=1,
        top_root=HeaderNode(-1, -1, tuple(HeaderNode(0, c) for c in (1, 2, 3))),
        left_root=HeaderNode(-1, -1, tuple(HeaderNode(r, 0) for r in (1, 2, 3))),
    )


def tiny_encoder(seed: int = 0) -> FortapEncoder:
    torch.manual_seed(seed)
    return FortapEncoder(ModelConfig.tiny(vocab_size=30522, hidden_dropout=0.0))
