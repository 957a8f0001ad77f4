"""`Piece`: one token of a cell block before layout — its id, number features and position source."""

from __future__ import annotations

from typing import NamedTuple

from fortap.text.numbers import Features

RC = tuple[int, int]  # table-relative (row, col)


class Piece(NamedTuple):
    """A token with the cell whose row, column, tree coordinates and format it takes (`at`)."""

    token_id: int
    numbers: Features
    at: RC
