"""Formulas that parse but that Excel rejects or that can only give an error.

formualizer is more lenient than Excel, and a decoder can write what no person would. The
reasons, each a verdict reason of `filters`:

- `wrong_arity`: a vocabulary function with fewer or more arguments than Excel allows
  (`=ROUND(B7:B10)`, `=SUM()`; the counts are `grammar`'s table);
- `union_as_value`: a union `(A1,B1)` where one value is needed, as an operand of an
  arithmetic or comparison operator or the formula itself (`=C10+(C10,C10)`); implicit
  intersection cannot reduce a multi-area reference, so Excel answers #VALUE! wherever it stands;
- `non_reference_range`: a range operator `:` with an end that is no reference (`=(B1+B2):B3`);
- `non_reference_argument`: a constant or an arithmetic result where `SUBTOTAL` or `OFFSET`
  needs a reference (`=OFFSET(5,1,1)`).

A union outside parentheses (`=C10+C10, C10`: formualizer reads `C10+(C10,C10)`) is text Excel
does not accept at all; `parser.parse_ast` rejects it with `bare_union_position`.

A multi-cell range where one value is expected (`=ABS(B9:B41)`, `=SUM(IF(A1:A9>0,1))`) is left
alone: Excel takes it by implicit intersection or as an array formula, and real spreadsheets
hold both. `PrefixGrammar` keeps the decoder from writing it.
"""

from __future__ import annotations

import formualizer

from fortap.formula.grammar import function_arity
from fortap.formula.nodes import BINARY_OPS, Array, Const, Func, Node, Op, walk

REASONS = ("wrong_arity", "union_as_value", "non_reference_range", "non_reference_argument")
_VALUE_OPS = BINARY_OPS | {"u-", "u+", "%"}
# argument positions that must be references: function -> (first, stop) slice of positions
_REFERENCE_FROM = {"SUBTOTAL": (1, None), "OFFSET": (0, 1)}


def invalid_reasons(ast: Node) -> set[str]:
    """Every reason above that applies to a parsed formula (empty: none)."""
    found: set[str] = set()
    if _is_union(ast):
        found.add("union_as_value")
    for n in walk(ast):
        if isinstance(n, Func):
            arity = function_arity(n.name)
            if arity is not None and not arity[0] <= len(n.args) <= arity[1]:
                found.add("wrong_arity")
            first, stop = _REFERENCE_FROM.get(n.name, (len(n.args), None))
            if any(_not_reference(a) for a in n.args[first:stop]):
                found.add("non_reference_argument")
        elif isinstance(n, Op) and n.op in _VALUE_OPS and any(map(_is_union, n.args)):
            found.add("union_as_value")
        elif isinstance(n, Op) and n.op == ":" and any(map(_not_reference, n.args)):
            found.add("non_reference_range")
    return found


def _is_union(n: Node) -> bool:
    return isinstance(n, Op) and n.op == ","


def _not_reference(n: Node) -> bool:
    """A value that can never be a reference: a constant, an array or an arithmetic result.
    Not an error constant: `#REF!:#REF!` is what Excel leaves where a range was deleted."""
    if isinstance(n, Const):
        return n.kind != "err"
    return isinstance(n, Array) or (isinstance(n, Op) and n.op in _VALUE_OPS)


def bare_union_position(text: str) -> int | None:
    """Where a union comma stands outside parentheses (`=A1+B1, C1`), else None.

    Excel accepts a union only inside its own parentheses: `=SUM((A1,B1))`, `=(A1,B1)`. In an
    argument list the comma separates arguments, and the tokenizer says which is which.
    """
    enclosing: list[str] = []  # "(" for a parenthesis, "f" for a function's argument list
    for token in formualizer.tokenize(text):
        kind, sub, value = str(token.token_type), str(token.subtype), token.value
        if sub == "Open":
            enclosing.append("(" if kind == "Paren" else "f")
        elif sub == "Close" and enclosing:
            enclosing.pop()
        elif kind == "OpInfix" and value == "," and (not enclosing or enclosing[-1] != "("):
            return token.start
    return None
