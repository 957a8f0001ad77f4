"""Pretraining targets that need only the formula and the cell values.

- NCP (numerical calculation prediction): an operator or function among the paper's 17
  (the 13 operators `% + - * / ^ & = <> > >= < <=` and SUM, AVERAGE, MAX, MIN) whose direct
  operands are all references to numeric cells labels those cells with itself. We follow the
  paper's 17 classes rather than the reference code's 19: unary minus/plus are merged into
  `-`/`+` as in the formula vocabulary. Like the code, a range operand contributes its two end
  cells (ranges are not expanded), and only the first group per operator is kept.
- referenced cells: every cell a formula points at (ranges expanded, clipped to a bound), the
  input NRP needs together with the headers (NRP itself comes with the corpus work).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fortap.formula.filters import is_local
from fortap.formula.formula import Formula
from fortap.formula.nodes import Func, Node, Op, Ref, walk
from fortap.formula.references import on_row_or_column, ref_box, ref_cells
from fortap.formula.tokens import OPERATORS

NCP_CLASSES: tuple[str, ...] = OPERATORS + ("SUM", "AVERAGE", "MAX", "MIN")
NCP_INDEX = {name: i for i, name in enumerate(NCP_CLASSES)}
assert len(NCP_CLASSES) == 17
_MERGED = {"u-": "-", "u+": "+"}


@dataclass(frozen=True)
class NcpGroup:
    """One NCP target: the operator class and the cells (sheet row, col) it combines."""

    operator: str
    label: int
    cells: tuple[tuple[int, int], ...]


def _ncp_operator(n: Node) -> str | None:
    if isinstance(n, Op):
        name = _MERGED.get(n.op, n.op)
        return name if name in OPERATORS else None
    if isinstance(n, Func) and n.name in ("SUM", "AVERAGE", "MAX", "MIN"):
        return n.name
    return None


def ncp_groups(formula: Formula, is_numeric: Callable[[tuple[int, int]], bool]) -> list[NcpGroup]:
    """NCP targets of a formula; `is_numeric((row, col))` says whether a sheet cell holds a number."""
    groups: dict[str, NcpGroup] = {}
    for n in walk(formula.ast):
        name = _ncp_operator(n)
        if name is None or name in groups or not n.args:  # type: ignore[union-attr]
            continue
        args = n.args  # type: ignore[union-attr]
        host = formula.host_sheet
        if not all(isinstance(a, Ref) and is_local(a, host) and ref_cells(a) for a in args):
            continue
        cells = tuple(c for a in args for c in ref_cells(a))  # type: ignore[arg-type]
        if all(is_numeric(c) for c in cells):
            groups[name] = NcpGroup(name, NCP_INDEX[name], cells)
    return list(groups.values())


def referenced_cells(
    formula: Formula, bounds: tuple[int, int] | None = None, limit: int = 10_000
) -> tuple[tuple[int, int], ...]:
    """Every distinct cell referenced on the host sheet, ranges expanded, in first-seen order.

    `bounds` (n_rows, n_cols) clips ranges to the used grid (whole columns otherwise reach row
    1,048,576); at most `limit` cells are returned.
    """
    seen: dict[tuple[int, int], None] = {}
    for n in walk(formula.ast):
        if not isinstance(n, Ref) or not is_local(n, formula.host_sheet):
            continue
        box = ref_box(n)
        if box is None:
            continue
        top, left, bottom, right = box
        if bounds is not None:
            bottom, right = min(bottom, bounds[0] - 1), min(right, bounds[1] - 1)
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                seen[(r, c)] = None
                if len(seen) >= limit:
                    return tuple(seen)
    return tuple(seen)


def on_row_or_column_only(formula: Formula) -> bool:
    """True when every reference lies on the formula cell's own row or column (the paper: 89 %).

    Needs `formula.cell`; references to other sheets or without cells count as off the line.
    """
    if formula.cell is None:
        raise ValueError("on_row_or_column_only needs a formula parsed with its cell")
    boxes = [
        ref_box(n) if is_local(n, formula.host_sheet) else None
        for n in walk(formula.ast)
        if isinstance(n, Ref)
    ]
    return bool(boxes) and all(b is not None and on_row_or_column(b, formula.cell) for b in boxes)
