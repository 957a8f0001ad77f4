"""The encoder on real model input: a literal table through `serialize` and `collate`."""

from __future__ import annotations

import pytest
import torch

from fortap.encoding.collate import collate
from fortap.encoding.serialize import serialize
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.sheet.model import Cell, CellStyle, Region
from fortap.table.model import HeaderNode, Table
from fortap.text.tokenizer import Tokenizer

BOLD = CellStyle(bold=True)


def sales_table() -> Table:
    """Two-level top header ("Sales 2019" over Jan/Feb, and Total) over one data row."""
    h, empty = (lambda text: Cell(text, "text", style=BOLD)), Cell()
    return Table(
        book="sales.xlsx",
        sheet="Sheet1",
        region=Region(1, 1, 3, 4),
        cells=(
            (h("Region"), h("Sales 2019"), empty, h("Total")),
            (empty, h("Jan"), h("Feb"), empty),
            (
                Cell("North", "text"),
                Cell(1200.0, "number"),
                Cell(58.5, "number"),
                Cell(1258.5, "number", formula="=SUM(C4:D4)"),
            ),
        ),  # fmt: skip
        merged=(Region(0, 0, 1, 0), Region(0, 1, 0, 2), Region(0, 3, 1, 3)),
        top_header_rows=2,
        left_header_cols=1,
        top_root=HeaderNode(
            -1, -1, (HeaderNode(0, 1, (HeaderNode(1, 1), HeaderNode(1, 2))), HeaderNode(0, 3))
        ),
        left_root=HeaderNode(-1, -1, (HeaderNode(2, 0),)),
        context=("Sales by region",),
    )


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return Tokenizer()


def test_serialised_table_encodes_and_padding_changes_nothing(tokenizer):
    table = sales_table()
    short = serialize(table, tokenizer, context="Sales by region")
    long = serialize(table, tokenizer, context="Sales by region in the first quarter of 2019")
    torch.manual_seed(0)
    config = ModelConfig.tiny(vocab_size=tokenizer.vocab_size, hidden_dropout=0.0)
    model = FortapEncoder(config).eval()
    alone = model(collate([short], pad_to_multiple=1))
    together = model(collate([short, long], pad_to_multiple=8))
    T, C = len(short), len(short.cell_coords)
    assert alone.token_states.shape == (1, T, 64) and alone.cell_states.shape[1] == C
    assert together.token_states.shape[1] % 8 == 0 and together.token_states.shape[1] > T
    torch.testing.assert_close(
        together.token_states[0, :T], alone.token_states[0], atol=1e-5, rtol=0
    )
    torch.testing.assert_close(together.cell_states[0, :C], alone.cell_states[0], atol=1e-5, rtol=0)
