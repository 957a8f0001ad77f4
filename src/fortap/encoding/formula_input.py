"""A formula cell shown as its formula: prefix formula tokens that point at the cells they reference.

ForTaP's FORMULA input mode. The cell's `Formula` (parsed once per table,
`fortap.formula.table_formulas`) is linearised in prefix order
(`=SUM(B3:C3)` -> `[SUM] [:] [RANGE] [RANGE]`); each token becomes its formula-vocabulary id
(110..150). Operators, functions and constants take the formula cell's own position, tree
coordinates and format, and the number features of its cached value. A reference token takes the
*referenced* cell's row, column, tree coordinates, format and number features, so the reference
is pointed at through the position embeddings and tree attention. A reference that leaves the
table (another sheet, outside the region, a defined name) or points at the formula cell itself
falls back to the formula cell's features, as in the reference code.
"""

from __future__ import annotations

from fortap.encoding.piece import RC, Piece
from fortap.errors import FortapError
from fortap.formula import Formula, FormulaToken
from fortap.formula.table_formulas import TableFormulas, parse_table_cell
from fortap.table.model import Table
from fortap.text.numbers import NAN_FEATURES, Features
from fortap.text.tokenizer import Tokenizer


def formula_pieces(
    table: Table,
    tokenizer: Tokenizer,
    rc: RC,
    max_tokens: int,
    formulas: TableFormulas | None = None,
) -> tuple[list[Piece] | None, str]:
    """The formula tokens of cell `rc` as pieces, or (None, why) when it cannot be shown so
    (`no_formula`, `unparsable`, `empty`, or `too_long`: more than `max_tokens` tokens).

    The tokens are those of the cell's `Formula` in `formulas` (the table's formulas, parsed
    once); a caller without them gets the one cell parsed here."""
    if table.cell(*rc).formula is None:
        return None, "no_formula"
    formula = formula_of(table, rc, formulas)
    if formula is None:
        return None, "unparsable"
    tokens = formula.tokens
    if not tokens:
        return None, "empty"
    if len(tokens) > max_tokens:
        return None, "too_long"
    own = value_features(table, tokenizer, rc)
    pieces = []
    for token in tokens:
        at = referenced_cell(table, token, rc) if token.kind == "CELL" else None
        if at is None:
            pieces.append(Piece(tokenizer.id_of(token.vocab), own, rc))
        else:
            pieces.append(
                Piece(tokenizer.id_of(token.vocab), value_features(table, tokenizer, at), at)
            )
    return pieces, ""


def formula_of(table: Table, rc: RC, formulas: TableFormulas | None = None) -> Formula | None:
    """The `Formula` of formula cell `rc`: from `formulas` when they hold the cell, else parsed
    now; None when it does not parse."""
    if formulas is not None and rc in formulas:
        return formulas.get(rc)
    try:
        return parse_table_cell(table, rc)
    except FortapError:
        return None


def referenced_cell(table: Table, token: FormulaToken, rc: RC) -> RC | None:
    """Table (row, col) a CELL token points at, None if off this table or at the cell itself."""
    if token.cell is None:
        return None
    sheet, bang, _ = token.text.rpartition("!")
    if bang and sheet.strip("'").replace("''", "'") != table.sheet:
        return None
    r, c = token.cell[0] - table.region.top, token.cell[1] - table.region.left
    if not (0 <= r < table.n_rows and 0 <= c < table.n_cols) or (r, c) == tuple(rc):
        return None
    return r, c


def value_features(table: Table, tokenizer: Tokenizer, rc: RC) -> Features:
    """Number features of the first number in a cell's value (not-a-number if it has none)."""
    for _, numbers in tokenizer.encode_cell(table.cell(*rc).text):
        if numbers != NAN_FEATURES:
            return numbers
    return NAN_FEATURES
