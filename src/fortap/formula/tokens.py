"""ForTaP's 41-token formula vocabulary and the `FormulaToken` of a prefix sequence.

The order is the reference code's (`constants.py`): the 7 structural tokens, the 13 operators,
the 20 functions, then `[UNKOP]` for every other function or operator. Bracketed names are the
encoder's spelling (`[SUM]`); the decoder uses the same order.

Unary minus and plus: ForTaP merges them with binary `-`/`+` (there is no separate token), and
so do we in `vocab`; the token's `text` keeps `u-`/`u+` so the distinction is not lost. Other
operators outside the 13 (intersection, union, `@`, spill `#`) and array constants map to
`[UNKOP]`; error constants map to `[C-STR]`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

STRUCTURAL = ("[START]", "[END]", "[:]", "[RANGE]", "[C-STR]", "[C-NUM]", "[C-BOOL]")
OPERATORS = ("%", "+", "-", "*", "/", "^", "&", "=", "<>", ">", ">=", "<", "<=")
FUNCTIONS = (
    "SUM", "IF", "ROUND", "VLOOKUP", "AVERAGE", "OFFSET", "ABS", "EOMONTH", "LN", "MAX",
    "ISERROR", "INDEX", "MATCH", "MONTH", "SQRT", "AND", "MIN", "EDATE", "YEAR", "SUBTOTAL",
)  # fmt: skip
UNKOP = "[UNKOP]"
FORMULA_VOCAB: tuple[str, ...] = (
    STRUCTURAL + tuple(f"[{o}]" for o in OPERATORS) + tuple(f"[{f}]" for f in FUNCTIONS) + (UNKOP,)
)
FORMULA_VOCAB_INDEX = {tok: i for i, tok in enumerate(FORMULA_VOCAB)}
assert len(FORMULA_VOCAB) == 41

START, END, COLON, RANGE, C_STR, C_NUM, C_BOOL = STRUCTURAL
CONST_VOCAB = {"str": C_STR, "num": C_NUM, "bool": C_BOOL, "err": C_STR}
# tokens a sketch cannot be written back from: which constant, which function or operator
PLACEHOLDER_TOKENS = frozenset({C_NUM, C_STR, C_BOOL, UNKOP})
OP_VOCAB = {o: f"[{o}]" for o in OPERATORS} | {"u-": "[-]", "u+": "[+]"}
FUNC_VOCAB = {f: f"[{f}]" for f in FUNCTIONS}

TokenKind = Literal["OP", "FUNC", "CELL", "CONST", "SPECIAL"]


class FormulaToken(NamedTuple):
    """One token of a formula in prefix order.

    `kind`: OP, FUNC, CELL (a reference end), CONST or SPECIAL (`:`); `text`: as written, `$`
    stripped from cells; `vocab`: one of `FORMULA_VOCAB`; `cell`: 0-based sheet (row, col) of a
    CELL token, None for other kinds and for references without cells (names, external, ...).
    """

    kind: TokenKind
    text: str
    vocab: str
    cell: tuple[int, int] | None = None
