"""A decoded prefix sketch and its pointed cells -> our formula AST, read by the arity table;
the one printer of sketches (every text goes through `printer.to_text`).

The inverse of `sketch.prefix_tokens` for the sketches `PrefixGrammar` allows: the same arity
table decides where each argument goes, so every sketch the constraint lets end has a reading,
and `printer.to_text` of it is a formula the parser reads back to the same sketch and cells.
Where a sketch has several readings (`[SUM] [SUM] [RANGE] [RANGE]`), each function takes as
many arguments as it can while leaving enough tokens for the arguments still owed above it
(`SUM(SUM(A1,B1))`), and `[+]`/`[-]` are binary when they can be.

Two texts come out:
- `formula_text`: a formula Excel takes. Constants cannot be recovered from the 41-token
  vocabulary; they come out as `PLACEHOLDERS` (`0`, `""`, `TRUE`), a value a user must fill in;
- `template_text`: any token sequence shown to a reader (a guess with a constant, a pointer to
  no cell, `[UNKOP]`, or no reading under the arity table), read greedily by the same arity
  table without slot kinds or backtracking; constants as `TEMPLATE_PLACEHOLDERS` (`<num>`), a
  missing operand as `NO_OPERAND` (`?`), arguments separated by `, `; not a formula Excel takes.
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
TEMPLATE_PLACEHOLDERS = {C_NUM: "<num>", C_STR: '"<text>"', C_BOOL: "<bool>"}
NO_OPERAND = "?"  # a template's operand that the token sequence ran out before
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


def template_text(sketch: Sequence[str], shown: Sequence[str]) -> str:
    """Template text of any token sequence (vocabulary strings, `[START]`/`[END]` optional)
    with `shown` filling its `[RANGE]` slots in order (`B7`, `<WR>`; `NO_OPERAND` when they run
    out): `=ROUND(D3*<num>, <num>)`, `=SUM(A1:?)`. Tokens left after a whole expression are
    read as further expressions, after a comma."""
    tokens = [t for t in sketch if t not in (START, END)]
    if not tokens:
        return "="
    reader = _GreedyReader(tokens, [_shown(s) for s in shown])
    parts = [reader.expression(0)]
    while reader.i < len(tokens):  # leftovers the arity table could not place
        parts.append(reader.expression(0))
    return "=" + ", ".join(to_text(part, separator=", ")[1:] for part in parts)


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


class _GreedyReader:
    """One reading of any token sequence, by the arity table (`[UNKOP]`: any arguments) without
    slot kinds or backtracking. A function takes arguments while its arity allows and tokens
    remain beyond `owed`; an operator takes all its operands, `[+]`/`[-]` one when two would
    not leave `owed`. A template's leaves are shown as they are; an operand the tokens run out
    before, or a `[RANGE]` slot with nothing left to show, is `NO_OPERAND`."""

    def __init__(self, tokens: list[str], slots: list[Node]) -> None:
        self.tokens, self.slots, self.i = tokens, slots, 0
        self.table = signatures(unknown=True)

    def left(self) -> int:
        return len(self.tokens) - self.i

    def expression(self, owed: int) -> Node:
        """Read one operand, leaving at least `owed` tokens for operands still owed above."""
        if self.i >= len(self.tokens):
            return _shown(NO_OPERAND)
        token = self.tokens[self.i]
        self.i += 1
        if token == RANGE:
            return self.slots.pop(0) if self.slots else _shown(NO_OPERAND)
        if token in TEMPLATE_PLACEHOLDERS:
            return _shown(TEMPLATE_PLACEHOLDERS[token])
        sig = self.table[token]
        if token != UNKOP and not token[1:-1].isalpha():  # an operator
            n = sig.max_args if self.left() >= sig.max_args + owed else sig.min_args
            return _node(token, tuple(self.expression(owed + n - k - 1) for k in range(n)))
        args: list[Node] = []
        while (
            len(args) < sig.max_args
            and self.left() > 0
            and (len(args) < sig.min_args or self.left() > owed)
        ):
            args.append(self.expression(owed + max(0, sig.min_args - len(args) - 1)))
        return _node(token, tuple(args))


def _shown(text: str) -> Ref:
    """A template's leaf (`B7`, `<num>`, `?`), printed as it is (a name reference's text)."""
    return Ref("name", name=text)


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
