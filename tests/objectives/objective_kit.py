"""Helpers for the objective tests: the literal revenue table, a tiny real encoder, overfitting.

The revenue table (4 x 3), a two-level top header and a flat left header:

|   | 0       | 1                    | 2     |
|---|---------|----------------------|-------|
| 0 | region  | revenue (merged 1:2) |       |
| 1 |         | 2019                 | 2020  |
| 2 | north   | 12.5                 | 14    |
| 3 | south   | 9                    | 11.25 |
"""

from __future__ import annotations

import random

import torch

from fortap.encoding.collate import collate
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.sheet.model import EMPTY, Cell, Region
from fortap.table.model import HeaderNode, Table


def text(value: str) -> Cell:
    return Cell(value, "text")


def number(value: float) -> Cell:
    return Cell(value, "number")


def revenue_table(context: tuple[str, ...] = ("quarterly revenue by region",)) -> Table:
    return Table(
        book="revenue.xlsx",
        sheet="Sheet1",
        region=Region(0, 0, 3, 2),
        cells=(
            (text("region"), text("revenue"), EMPTY),
            (EMPTY, number(2019.0), number(2020.0)),
            (text("north"), number(12.5), number(14.0)),
            (text("south"), number(9.0), number(11.25)),
        ),
        merged=(Region(0, 1, 0, 2),),
        top_header_rows=2,
        left_header_cols=1,
        top_root=HeaderNode(-1, -1, (HeaderNode(0, 1, (HeaderNode(1, 1), HeaderNode(1, 2))),)),
        left_root=HeaderNode(-1, -1, (HeaderNode(2, 0), HeaderNode(3, 0))),
        context=context,
    )


def tiny_encoder(seed: int = 0) -> FortapEncoder:
    torch.manual_seed(seed)
    return FortapEncoder(ModelConfig.tiny(vocab_size=30522, hidden_dropout=0.0))


def overfit(model, batch, steps: int = 300, lr: float = 3e-3, stop_below: float = 0.02):
    """Train `model` (a MultiObjectiveModel) on one batch until its loss is below `stop_below`;
    returns the logs of the last forward pass and the number of updates made."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    logs: dict = {}
    for step in range(steps):
        optimizer.zero_grad()
        loss, logs = model(batch)
        if logs["loss"] < stop_below:
            return logs, step
        loss.backward()
        optimizer.step()
    return logs, steps


def batch_of(examples, model):
    return collate(examples, target_collators=model.target_collators())


def seeded(seed: int) -> random.Random:
    return random.Random(seed)


def cell_spans(example) -> dict[int, tuple[int, int]]:
    """Token range `[start, end)` of every cell id of an `Example`."""
    spans: dict[int, tuple[int, int]] = {}
    for pos, cell in enumerate(example.cell_ids):
        spans[cell] = (spans.get(cell, (pos, pos))[0], pos + 1)
    return spans
