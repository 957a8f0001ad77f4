"""Formula templates: relative expression trees that a dragged block of cells shares.

A template is a small tree of tuples, placed at a cell by offsets (R1C1 in spirit):

- `("ref", dr, dc)`: the cell `dr` rows and `dc` columns away (`=B5` dragged);
- `("abs", row, col)`: one fixed cell, written `$H$24` (a rate, a total);
- `("run", fn, dr0, dc0, dr1, dc1)`: `SUM` or `AVERAGE` over the box between two offsets;
- `("num", text)`: a constant, written as `text`;
- `("op", op, left, right)`: `+ - * /`;
- `("fn", name, arg, ...)`: `ROUND(x, n)`, `ABS(x)`, `MAX(a, b)`, `MIN(a, b)`, and the guard
  `IF(b=0, 0, a/b)` as `("fn", "IFZERO", a, b)`.

`text_at` writes a template at a cell as Excel A1 text; `evaluate` computes its value at many
cells at once from a value grid (numpy, NaN for what is not a number), so a search can check a
template over a whole block and read the value it gives the target. `size` counts its leaves and
operators (the simpler, the likelier), `cells_read` the cells it reads at a place.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fortap.sheet.model import a1

Template = tuple
PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def text_at(tpl: Template, row: int, col: int, plus: bool = False) -> str | None:
    """`tpl` written at (row, col) as `=...` text; None when it reads off the sheet. `plus`
    writes the Lotus habit `=+...`."""
    try:
        body = _text(tpl, row, col)
    except _OffSheet:
        return None
    return ("=+" if plus else "=") + body


class _OffSheet(Exception):
    pass


def _cell(row: int, col: int, absolute: bool = False) -> str:
    if row < 0 or col < 0:
        raise _OffSheet
    return a1(row, col, absolute=absolute)


def _text(tpl: Template, r: int, c: int) -> str:
    kind = tpl[0]
    if kind == "ref":
        return _cell(r + tpl[1], c + tpl[2])
    if kind == "abs":
        return _cell(tpl[1], tpl[2], absolute=True)
    if kind == "num":
        return tpl[1]
    if kind == "run":
        _, fn, dr0, dc0, dr1, dc1 = tpl
        return f"{fn}({_cell(r + dr0, c + dc0)}:{_cell(r + dr1, c + dc1)})"
    if kind == "op":
        _, op, left, right = tpl
        lt, rt = _text(left, r, c), _text(right, r, c)
        if left[0] == "op" and PRECEDENCE[left[1]] < PRECEDENCE[op]:
            lt = f"({lt})"
        if right[0] == "op" and (
            PRECEDENCE[right[1]] < PRECEDENCE[op]
            or (PRECEDENCE[right[1]] == PRECEDENCE[op] and op in "-/")
        ):
            rt = f"({rt})"
        return f"{lt}{op}{rt}"
    if kind == "fn":
        name, args = tpl[1], tpl[2:]
        if name == "IFZERO":
            a, b = (_text(x, r, c) for x in args)
            return f"IF({b}=0,0,{a}/{b})"
        return f"{name}({','.join(_text(x, r, c) for x in args)})"
    raise ValueError(f"template: unknown node {tpl!r}")


def size(tpl: Template) -> int:
    """Leaves and operators: `B5` 1, `B5-C5` 3, `SUM(B5:E5)` 2, `ROUND(B5/C5,2)` 5."""
    kind = tpl[0]
    if kind in ("ref", "abs", "num"):
        return 1
    if kind == "run":
        return 2
    if kind == "op":
        return 1 + size(tpl[2]) + size(tpl[3])
    return 1 + sum(size(x) for x in tpl[2:])


def leaves(tpl: Template) -> list[Template]:
    """The references, runs and constants of `tpl`, left to right."""
    kind = tpl[0]
    if kind in ("ref", "abs", "num", "run"):
        return [tpl]
    args = tpl[2:] if kind == "fn" else tpl[2:4]
    return [leaf for x in args for leaf in leaves(x)]


def reach(tpl: Template) -> int:
    """The farthest relative offset it reads (rows or columns)."""
    far = 0
    for leaf in leaves(tpl):
        if leaf[0] == "ref":
            far = max(far, abs(leaf[1]), abs(leaf[2]))
        elif leaf[0] == "run":
            far = max(far, *(abs(x) for x in leaf[2:]))
    return far


def cells_read(tpl: Template, row: int, col: int) -> list[tuple[int, int]]:
    """The cells `tpl` reads when placed at (row, col) (runs: every cell of the box)."""
    out = []
    for leaf in leaves(tpl):
        if leaf[0] == "ref":
            out.append((row + leaf[1], col + leaf[2]))
        elif leaf[0] == "abs":
            out.append((leaf[1], leaf[2]))
        elif leaf[0] == "run":
            r0, r1 = sorted((row + leaf[2], row + leaf[4]))
            c0, c1 = sorted((col + leaf[3], col + leaf[5]))
            out += [(i, j) for i in range(r0, r1 + 1) for j in range(c0, c1 + 1)]
    return out


Values = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (rows (n,), cols (n,)) -> (n,) float


def evaluate(tpl: Template, rows: np.ndarray, cols: np.ndarray, values: Values) -> np.ndarray:
    """The template's value at each place (rows, cols) (n,) as Excel computes it, NaN where a
    cell it reads is no number or a division fails; `values` gives the grid's numbers."""
    kind = tpl[0]
    n = len(rows)
    if kind == "ref":
        return values(rows + tpl[1], cols + tpl[2])
    if kind == "abs":
        return values(np.full(n, tpl[1]), np.full(n, tpl[2]))
    if kind == "num":
        return np.full(n, float(tpl[1]))
    if kind == "run":
        _, fn, dr0, dc0, dr1, dc1 = tpl
        parts = [values(rows + i, cols + j) for i in range(min(dr0, dr1), max(dr0, dr1) + 1)
                 for j in range(min(dc0, dc1), max(dc0, dc1) + 1)]  # fmt: skip
        stack = np.stack(parts)  # (m, n)
        count = np.isfinite(stack).sum(0)  # (n,): Excel's aggregates skip what is no number
        total = np.nansum(stack, 0)
        with np.errstate(all="ignore"):
            return np.where(count == 0, np.nan, total if fn == "SUM" else total / count)
    with np.errstate(all="ignore"):
        if kind == "op":
            a = evaluate(tpl[2], rows, cols, values)
            b = evaluate(tpl[3], rows, cols, values)
            return apply(tpl[1], a, b)
        args = [evaluate(x, rows, cols, values) for x in tpl[2:]]
        return apply(tpl[1], *args)


def apply(name: str, *args: np.ndarray) -> np.ndarray:
    """One operator or function over arrays, as Excel computes it (NaN for an error)."""
    with np.errstate(all="ignore"):
        if name == "+":
            return args[0] + args[1]
        if name == "-":
            return args[0] - args[1]
        if name == "*":
            return args[0] * args[1]
        if name == "/":
            b = args[1]
            return np.where(b == 0.0, np.nan, args[0] / np.where(b == 0.0, 1.0, b))
        if name == "MAX":
            return np.maximum(args[0], args[1])
        if name == "MIN":
            return np.minimum(args[0], args[1])
        if name == "ABS":
            return np.abs(args[0])
        if name == "ROUND":
            return excel_round(args[0], args[1])
        if name == "IFZERO":
            a, b = args
            return np.where(b == 0.0, 0.0, a / np.where(b == 0.0, 1.0, b))
    raise ValueError(f"template: unknown operator {name!r}")


def excel_round(x: np.ndarray, digits) -> np.ndarray:
    """Excel's ROUND: halves away from zero (numpy rounds them to even)."""
    scale = np.power(10.0, digits)
    with np.errstate(all="ignore"):
        return np.sign(x) * np.floor(np.abs(x) * scale + 0.5 + 1e-9) / scale
