"""Our AST -> formula text, with just the parentheses Excel's precedence needs.

`parse_ast(to_text(ast)) == ast` holds for every tree the parser produces (checked on the
EUSES corpus and by a hypothesis property test). Precedence follows formualizer, which follows
Excel except for one documented case: `-A1%` parses as `-(A1%)`. Binary operators are
left-associative (`2^3^4` is `(2^3)^4`). A union is always parenthesised, as Excel requires
inside argument lists. `ref_text` lets callers render references differently (R1C1, no `$`),
and `separator` goes between a function's arguments (`, ` in templates shown to people).
"""

from __future__ import annotations

from collections.abc import Callable

from fortap.formula.nodes import Array, Const, Func, Missing, Node, Op, Ref
from fortap.formula.references import ref_a1

_BINARY_PREC = {
    "=": 1, "<>": 1, "<": 1, ">": 1, "<=": 1, ">=": 1,
    "&": 2, "+": 3, "-": 3, "*": 4, "/": 4, "^": 5,
}  # fmt: skip
_PREFIX_PREC = 6


def number_text(value: float) -> str:
    """Shortest text that reads back as the same float (`2.0` -> `2`, `1e-05` stays)."""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def const_text(c: Const) -> str:
    if c.kind == "num":
        return number_text(c.value)  # type: ignore[arg-type]
    if c.kind == "str":
        return '"' + str(c.value).replace('"', '""') + '"'
    if c.kind == "bool":
        return "TRUE" if c.value else "FALSE"
    return str(c.value)


class _Printer:
    def __init__(self, ref_text: Callable[[Ref], str], separator: str = ",") -> None:
        self.ref_text, self.separator = ref_text, separator

    def text(self, n: Node) -> str:
        if isinstance(n, Ref):
            return self.ref_text(n)
        if isinstance(n, Const):
            return const_text(n)
        if isinstance(n, Func):
            return n.name + "(" + self.separator.join(self.text(a) for a in n.args) + ")"
        if isinstance(n, Op):
            return self.op(n)
        if isinstance(n, Missing):
            return ""
        if isinstance(n, Array):
            return "{" + ";".join(",".join(self.text(c) for c in row) for row in n.rows) + "}"
        raise AssertionError(f"unknown node {n!r}")

    def op(self, n: Op) -> str:
        op = n.op
        prec = _BINARY_PREC.get(op)
        if prec is not None:
            left, right = n.args
            lt, rt = self.text(left), self.text(right)
            if _binary_prec(left) < prec:
                lt = f"({lt})"
            if _binary_prec(right) <= prec:
                rt = f"({rt})"
            return f"{lt}{op}{rt}"
        if op in ("u-", "u+", "u@"):
            (x,) = n.args
            xt = self.text(x)
            if _binary_prec(x) < _PREFIX_PREC or (isinstance(x, Op) and x.op in (":", " ")):
                xt = f"({xt})"
            return op[1] + xt
        if op in ("%", "#"):
            (x,) = n.args
            xt = self.text(x)
            if isinstance(x, Op) and x.op not in ("%", "#"):
                xt = f"({xt})"
            return xt + op
        # reference operators ":" " " ","
        parts = []
        for a in n.args:
            t = self.text(a)
            if isinstance(a, Op) and not (a.op == ":" and op != ":") and a.op != ",":
                t = f"({t})"
            parts.append(t)
        joined = op.join(parts)
        return f"({joined})" if op == "," else joined


def _binary_prec(n: Node) -> int:
    """Binding power of a child: infix arithmetic/comparison ops have theirs, all else binds tighter."""
    if isinstance(n, Op):
        return _BINARY_PREC.get(n.op, 99)
    return 99


def to_text(node: Node, ref_text: Callable[[Ref], str] = ref_a1, separator: str = ",") -> str:
    """Formula text with the leading `=`."""
    return "=" + _Printer(ref_text, separator).text(node)
