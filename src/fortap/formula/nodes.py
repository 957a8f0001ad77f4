"""Our formula AST: a few typed, frozen node kinds, independent of the parser library.

- `Op`: an operator. Binary `+ - * / ^ & = <> > >= < <=`, the reference operators `:`
  (range between non-literal endpoints, e.g. `A1:INDEX(B:B,3)`), `" "` (intersection) and `,`
  (union); prefix `u-`, `u+`, `u@`; postfix `%` and `#` (spill).
- `Func`: a function call; `name` is upper-case without the `_xlfn.`/`_xlws.` prefixes.
- `Ref`: a reference (the paper's CELL / RANGE): a cell, a rectangle, whole rows or columns,
  or one that cannot be resolved to cells (defined name, structured table reference,
  external workbook, 3-D). Keeps the sheet qualifier and the `$` flags.
- `Const`: a constant, `kind` one of `str`, `num`, `bool`, `err`.
- `Array`: an array constant `{1,2;3,4}`; `Missing`: an omitted argument `IF(A1,,2)`.

Coordinates are 0-based (row, col) on the sheet the reference points at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

RefKind = Literal["cell", "area", "name", "table", "external", "3d"]
ConstKind = Literal["str", "num", "bool", "err"]


@dataclass(frozen=True, slots=True)
class Address:
    """One end of a reference. `row` is None for whole columns (`A:C`), `col` for whole rows."""

    row: int | None
    col: int | None
    abs_row: bool = False
    abs_col: bool = False


@dataclass(frozen=True, slots=True)
class Ref:
    """A reference. `cell`: `start` only; `area`: `start` and `end` (rectangle, whole rows or
    whole columns); other kinds carry their source text in `name` and no addresses."""

    kind: RefKind
    sheet: str | None = None
    start: Address | None = None
    end: Address | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Const:
    kind: ConstKind
    value: str | float | bool


@dataclass(frozen=True, slots=True)
class Op:
    op: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Func:
    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Array:
    rows: tuple[tuple[Node, ...], ...]


@dataclass(frozen=True, slots=True)
class Missing:
    pass


MISSING = Missing()

Node = Op | Func | Ref | Const | Array | Missing

BINARY_OPS = frozenset(["+", "-", "*", "/", "^", "&", "=", "<>", ">", ">=", "<", "<="])


def walk(node: Node):
    """Every node of the tree in prefix (pre-order) order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, Op | Func):
            stack.extend(reversed(n.args))
        elif isinstance(n, Array):
            for row in reversed(n.rows):
                stack.extend(reversed(row))


def map_leaves(node: Node, change: Callable[[Node], Node]) -> Node:
    """`node` with every leaf (a `Ref`, `Const` or `Missing`) replaced by `change(leaf)`; the
    operators, functions and arrays above them are rebuilt around the results."""
    if isinstance(node, Op | Func):
        return replace(node, args=tuple(map_leaves(a, change) for a in node.args))
    if isinstance(node, Array):
        rows = tuple(tuple(map_leaves(a, change) for a in r) for r in node.rows)
        return replace(node, rows=rows)
    return change(node)


def map_refs(node: Node, move: Callable[[Ref], Ref]) -> Node:
    """`node` with every `Ref` replaced by `move(ref)`."""
    return map_leaves(node, lambda leaf: move(leaf) if isinstance(leaf, Ref) else leaf)
