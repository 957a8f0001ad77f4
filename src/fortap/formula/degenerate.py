"""Valid formulas that no one would write: flagged so that candidates can rank them lower.

A decoder that points each `[RANGE]` slot at its best cell alone can write `=SUM(B5:B5)` or
`=B7-B7`: Excel accepts them, but they mean little. The signs, each a key of `degenerate_signs`:

- `one_cell_range`: a range whose two ends are the same cell (`B5:B5`);
- `same_operands`: both operands of `-`, `/` or a comparison are the same (`B7-B7`, `A1=A1`),
  which is a constant (0, 1, TRUE) whatever the cells hold;
- `repeated_argument`: an aggregate (`SUM`, `AVERAGE`, `MAX`, `MIN`, `AND`) takes the same
  argument twice (`SUM(B5,B5)`).

None of these is rejected: `filters` keeps them, and real spreadsheets hold a few.
"""

from __future__ import annotations

from collections.abc import Sequence

from fortap.errors import FormulaError
from fortap.formula.from_sketch import formula_of_sketch
from fortap.formula.nodes import Func, Node, Op, Ref, walk

_SELF_CONSTANT_OPS = frozenset(["-", "/", "=", "<>", "<", ">", "<=", ">="])
_AGGREGATES = frozenset(["SUM", "AVERAGE", "MAX", "MIN", "AND"])


def degenerate_signs(ast: Node) -> set[str]:
    """Every sign above found in the formula (empty: not degenerate)."""
    found: set[str] = set()
    for n in walk(ast):
        if isinstance(n, Ref) and n.kind == "area" and n.end is not None and n.start == n.end:
            found.add("one_cell_range")
        elif isinstance(n, Op) and n.op in _SELF_CONSTANT_OPS and n.args[0] == n.args[1]:
            found.add("same_operands")
        elif isinstance(n, Func) and n.name in _AGGREGATES and len(set(n.args)) < len(n.args):
            found.add("repeated_argument")
    return found


def is_degenerate(ast: Node) -> bool:
    """True when the formula shows any sign of `degenerate_signs`."""
    return bool(degenerate_signs(ast))


def sketch_is_degenerate(sketch: Sequence[str], cells: Sequence[tuple[int, int] | None]) -> bool:
    """`is_degenerate` of the formula a decoded sketch and its pointed cells make; False when a
    cell is missing or the sketch has no reading (nothing to judge)."""
    if any(c is None for c in cells):
        return False
    try:
        ast = formula_of_sketch(sketch, cells)  # type: ignore[arg-type]
    except FormulaError:
        return False
    return is_degenerate(ast)
