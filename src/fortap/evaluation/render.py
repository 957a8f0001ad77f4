"""A predicted prefix sketch with its pointed cells -> Excel formula text (`=SUM(B2:B5)/B6`).

Prefix tokens carry no argument counts, so functions take their arguments greedily within the
arity we know for them (`ARITY`; unknown functions and `[UNKOP]` take what is left), keeping one
token for every operand still owed to the operators above. Binary operators take two operands
(one when the sequence runs out: unary minus), `%` one, `[:]` two references (`A1:B2`).
Constants cannot be recovered from the 41-token vocabulary: they render as the placeholders
`<num>`, `"<text>"` and `<bool>` (`PLACEHOLDERS`), so such a text is a template, not a formula
Excel would accept. A missing operand renders `?`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fortap.formula.tokens import C_BOOL, C_NUM, C_STR, COLON, END, RANGE, START, UNKOP

PLACEHOLDERS = {C_NUM: "<num>", C_STR: '"<text>"', C_BOOL: "<bool>"}
MISSING = "?"
MANY = 255  # Excel's argument limit
ARITY = {
    "SUM": (1, MANY), "AVERAGE": (1, MANY), "MAX": (1, MANY), "MIN": (1, MANY),
    "AND": (1, MANY), "SUBTOTAL": (2, MANY), "IF": (2, 3), "ROUND": (2, 2), "VLOOKUP": (3, 4),
    "OFFSET": (3, 5), "INDEX": (2, 3), "MATCH": (2, 3), "EOMONTH": (2, 2), "EDATE": (2, 2),
    "ABS": (1, 1), "LN": (1, 1), "SQRT": (1, 1), "MONTH": (1, 1), "YEAR": (1, 1),
    "ISERROR": (1, 1),
}  # fmt: skip
_PREC = {":": 8, "%": 7, "^": 6, "*": 5, "/": 5, "+": 4, "-": 4, "&": 3}  # comparisons: 2
_ATOM = 9


@dataclass(frozen=True)
class _Text:
    text: str
    prec: int = _ATOM


def render_formula(sketch: Sequence[str], addresses: Sequence[str]) -> str:
    """Excel text of `sketch` (vocabulary strings) with `addresses` filling its `[RANGE]` slots."""
    tokens = [t for t in sketch if t not in (START, END)]
    if not tokens:
        return "="
    reader = _Reader(tokens, list(addresses))
    parts = [reader.expression(0).text]
    while reader.i < len(tokens):  # leftovers the grammar could not place
        parts.append(reader.expression(0).text)
    return "=" + ", ".join(parts)


class _Reader:
    def __init__(self, tokens: list[str], addresses: list[str]) -> None:
        self.tokens, self.addresses, self.i = tokens, addresses, 0

    def left(self) -> int:
        return len(self.tokens) - self.i

    def expression(self, owed: int) -> _Text:
        """Read one operand, leaving at least `owed` tokens for operands still owed above."""
        if self.i >= len(self.tokens):
            return _Text(MISSING)
        token = self.tokens[self.i]
        self.i += 1
        if token == RANGE:
            return _Text(self.addresses.pop(0) if self.addresses else MISSING)
        if token in PLACEHOLDERS:
            return _Text(PLACEHOLDERS[token])
        name = token.strip("[]")
        if token == COLON:
            a, b = self.expression(owed + 1), self.expression(owed)
            return _Text(f"{a.text}:{b.text}", _PREC[":"])
        if name == "%":
            return _Text(self._wrap(self.expression(owed), _PREC["%"]) + "%", _PREC["%"])
        if token != UNKOP and name not in ARITY and not name.isalpha():
            return self._binary(name, owed)
        lo, hi = ARITY.get(name, (0, MANY))
        args: list[str] = []
        while len(args) < hi and self.left() > 0 and (len(args) < lo or self.left() > owed):
            args.append(self.expression(owed + max(0, lo - len(args) - 1)).text)
        return _Text(f"{'UNKOP' if token == UNKOP else name}({', '.join(args)})")

    def _binary(self, op: str, owed: int) -> _Text:
        prec = _PREC.get(op, 2)
        if self.left() < 2 + owed and op in "+-":  # too few tokens for two operands: unary
            return _Text(op + self._wrap(self.expression(owed), 6), 6)
        a = self.expression(owed + 1)
        b = self.expression(owed)
        return _Text(f"{self._wrap(a, prec)}{op}{self._wrap(b, prec + 1)}", prec)

    @staticmethod
    def _wrap(part: _Text, prec: int) -> str:
        return part.text if part.prec >= prec else f"({part.text})"
