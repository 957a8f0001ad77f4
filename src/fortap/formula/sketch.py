"""Prefix linearisation (SpreadsheetCoder/ForTaP order), the sketch and its ranges.

Prefix order puts every operator or function before its operands and emits no parentheses or
argument separators: `=SUM(B2:B5)/B6` -> `/ SUM : B2 B5 B6`. A range `A1:B2` becomes
`[:] [RANGE] [RANGE]` (its two ends, not its cells); an omitted argument emits nothing.
The sketch is `[START]`, the vocabulary token of each prefix token, `[END]`; the ranges are the
cells of the `[RANGE]` slots, in order.
"""

from __future__ import annotations

from fortap.formula.nodes import Array, Const, Func, Node, Op, Ref
from fortap.formula.printer import const_text
from fortap.formula.references import address_a1, ref_a1, ref_cells
from fortap.formula.tokens import (
    COLON,
    CONST_VOCAB,
    END,
    FUNC_VOCAB,
    OP_VOCAB,
    RANGE,
    START,
    UNKOP,
    FormulaToken,
)


def _ref_tokens(ref: Ref, out: list[FormulaToken]) -> None:
    cells = ref_cells(ref)
    if not cells:
        out.append(FormulaToken("CELL", ref_a1(ref, keep_dollar=False), RANGE, None))
        return
    prefix = "" if ref.sheet is None else ref_a1(ref, keep_dollar=False).rpartition("!")[0] + "!"
    if ref.end is None:
        out.append(FormulaToken("CELL", prefix + address_a1(ref.start, False), RANGE, cells[0]))
        return
    out.append(FormulaToken("SPECIAL", ":", COLON, None))
    out.append(FormulaToken("CELL", prefix + address_a1(ref.start, False), RANGE, cells[0]))
    out.append(FormulaToken("CELL", address_a1(ref.end, False), RANGE, cells[1]))


def _tokens(n: Node, out: list[FormulaToken]) -> None:
    if isinstance(n, Ref):
        _ref_tokens(n, out)
    elif isinstance(n, Const):
        out.append(FormulaToken("CONST", const_text(n), CONST_VOCAB[n.kind], None))
    elif isinstance(n, Op):
        if n.op == ":":
            out.append(FormulaToken("SPECIAL", ":", COLON, None))
        else:
            out.append(FormulaToken("OP", n.op, OP_VOCAB.get(n.op, UNKOP), None))
        for a in n.args:
            _tokens(a, out)
    elif isinstance(n, Func):
        out.append(FormulaToken("FUNC", n.name, FUNC_VOCAB.get(n.name, UNKOP), None))
        for a in n.args:
            _tokens(a, out)
    elif isinstance(n, Array):
        out.append(FormulaToken("OP", "{}", UNKOP, None))
        for row in n.rows:
            for c in row:
                _tokens(c, out)
    # Missing: nothing


def prefix_tokens(ast: Node) -> tuple[FormulaToken, ...]:
    """The formula's tokens in prefix order."""
    out: list[FormulaToken] = []
    _tokens(ast, out)
    return tuple(out)


def sketch_of(tokens: tuple[FormulaToken, ...]) -> tuple[str, ...]:
    """`[START]` + vocabulary tokens + `[END]`; every reference end is `[RANGE]`."""
    return (START, *(t.vocab for t in tokens), END)


def ranges_of(tokens: tuple[FormulaToken, ...]) -> tuple[tuple[int, int], ...]:
    """The sheet cell of each `[RANGE]` slot that has one, in order (all of them for kept formulas)."""
    return tuple(t.cell for t in tokens if t.cell is not None)
