"""A decoded prefix sketch and its pointed cells -> our formula AST, read by the arity table.

The inverse of `sketch.prefix_tokens` for the sketches `PrefixGrammar` allows: the same arity
table decides where each argument goes, so every sketch the constraint lets end has a reading,
and `printer.to_text` of it is a formula the parser reads back to the same sketch and cells.
Where a sketch has several readings (`[SUM] [SUM] [RANGE] [RANGE]`), each function takes as
many arguments as it can while leaving enough tokens for the arguments still owed above it
(`SUM(SUM(A1,B1))`), and `[+]`/`[-]` are binary when they can be: the rule of
`evaluation.render`.

Constants cannot be recovered from the 41-token vocabulary; they come out as `PLACEHOLDERS`
(`0`, `""`, `TRUE`), so the text is valid Excel with a value a user must fill in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from fortap.errors import FormulaError
from fortap.formula.grammar import FITS, FORMULA_SLOT, Signature, Slot, gives, signatures
from fortap.formula.nodes import Address, Const, Func, Node, Op, Ref
from fortap.formula.printer import to_text
from fortap.formula.references import ref_a1
from fortap.formula.tokens import C_BOOL, C_NUM, C_STR, COLON, END, RANGE, START, UNKOP

PLACEHOLDERS = {C_NUM: Const("num", 0.0), C_STR: Const("str", ""), C_BOOL: Const("bool", True)}
_UNARY = {"+": "u+", "-": "u-"}


def formula_of_sketch(
    sketch: Sequence[str], cells: Sequence[tuple[int, int]], unknown: bool = False
) -> Node:
    """The AST of `sketch` (vocabulary strings, `[START]`/`[END]` optional) with `cells`, the
    0-based (row, col) of each `[RANGE]` slot in order; `FormulaError` when the arity table
    gives it no reading or the cells do not match its slots."""
    tokens = [t for t in sketch if t not in (START, END)]
    text = " ".join(tokens)
    if sum(t == RANGE for t in tokens) != len(cells):
        raise FormulaError(text, f"{len(cells)} cells for {tokens.count(RANGE)} [RANGE] slots")
    reader = _Reader(tokens, list(cells), signatures(unknown))
    for node, end in reader.expressions(0, FORMULA_SLOT, 0):
        if end == len(tokens):
            return node
    raise FormulaError(text, "the sketch has no reading under the arity table")


def formula_text(sketch: Sequence[str], cells: Sequence[tuple[int, int]]) -> str:
    """Excel text of `formula_of_sketch` (`=ROUND(SUM(B2:B6),0)`), an area written top-left
    first whichever corner was pointed at first (`B2:B5`, never `B5:B2`); `FormulaError` as
    there."""
    return to_text(formula_of_sketch(sketch, cells), _ordered_a1)


def _ordered_a1(ref: Ref) -> str:
    if ref.kind == "area" and ref.start is not None and ref.end is not None:
        a, b = ref.start, ref.end
        if a.row is not None and b.row is not None and a.col is not None and b.col is not None:
            ref = replace(
                ref,
                start=Address(min(a.row, b.row), min(a.col, b.col)),
                end=Address(max(a.row, b.row), max(a.col, b.col)),
            )
    return ref_a1(ref)


class _Reader:
    """Backtracking reader of one sketch; `owed` is the fewest tokens still needed after the
    expression being read, so no function swallows its parent's arguments."""

    def __init__(self, tokens: list[str], cells: list[tuple[int, int]], table) -> None:
        self.tokens, self.table = tokens, table
        self.cell_at: dict[int, tuple[int, int]] = {}
        for i, t in enumerate(tokens):
            if t == RANGE:
                self.cell_at[i] = cells[len(self.cell_at)]

    def expressions(self, i: int, slot: Slot, owed: int) -> Iterator[tuple[Node, int]]:
        """Every reading of one expression starting at token `i` that fits `slot`, greediest first."""
        if i >= len(self.tokens) - owed:
            return
        token = self.tokens[i]
        value = gives(token, self.table)
        if value is None or value not in FITS[slot]:
            return
        if token == RANGE:
            yield Ref("cell", start=Address(*self.cell_at[i])), i + 1
        elif token in PLACEHOLDERS:
            yield PLACEHOLDERS[token], i + 1
        else:
            sig: Signature = self.table[token]
            for args, end in self.arguments(i + 1, sig, (), owed):
                yield _node(token, args), end

    def arguments(
        self, i: int, sig: Signature, taken: tuple[Node, ...], owed: int
    ) -> Iterator[tuple[tuple[Node, ...], int]]:
        n = len(taken)
        if n < sig.max_args:
            still = max(0, sig.min_args - n - 1)  # arguments this function needs after this one
            for arg, end in self.expressions(i, sig.slot(n), owed + still):
                yield from self.arguments(end, sig, (*taken, arg), owed)
        if n >= sig.min_args:
            yield taken, i


def _node(token: str, args: tuple[Node, ...]) -> Node:
    if token == COLON:
        a, b = args
        if isinstance(a, Ref) and isinstance(b, Ref) and a.kind == b.kind == "cell":
            return Ref("area", start=a.start, end=b.start)
        return Op(":", args)
    name = token[1:-1]
    if token == UNKOP:
        return Func("UNKOP", args)
    if name.isalpha():
        return Func(name, args)
    if len(args) == 1 and name in _UNARY:
        return Op(_UNARY[name], args)
    return Op(name, args)
