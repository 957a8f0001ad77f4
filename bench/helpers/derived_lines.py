"""Derived lines typed by hand: a column (or row) of typed numbers that other lines give.

A statistics table types its rates (births per 1,000 people), its differences (births less
deaths) and its totals as numbers; the structure of R1C1 runs sees no formula near them, so
`missing.holes` says nothing. Here a *line* is a column (axis 0) or a row (axis 1) of the sheet,
and a typed line `y` is *derived* when, position by position,

- `y = a op b` for two earlier lines `a`, `b` (left of a column, above a row), op one of
  + − × ÷, a quotient times 1, 100 or 1,000; or
- `y = SUM` of 2 to `SPAN` adjacent lines on either side (a total column left or right of its
  parts),

to the digits `y` shows (its values' largest count of decimals: a rate of 32.0 where the
quotient is 31.96 counts), at `MIN_CELLS` or more positions and at least `MIN_SHARE` of those
where every operand is a number (for a sum: where any is). Operands are numbers on the sheet,
typed or a formula's cached value. Earlier lines only: in `I = E − F` the typed `E` is also
`I + F`, and the later line is the one computed; where a total over the lines after it and a
difference of its parts close a cycle (Total, Male, Female; or Births, Deaths, Increase), either
may be typed from the other, and neither is taken. Trivial relations (an operand of zeros or
ones, a line equal to itself, a constant line) do not count. Each cell where the relation holds
gets it with the formula that computes it there (`Relation.fix`), rounded with ROUND where the
typed values are.

Everything is array arithmetic over at most `NEAR` earlier lines, checked first on a line's
first `SCREEN` positions, so a sheet costs milliseconds to a second. A research tool of
`bench/audit_derived.py`, which measures whether these relations help the audit on the TASI
key; `fortap audit` does not use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fortap.sheet.model import Sheet, a1

MIN_CELLS = 5  # positions where a relation holds, at least
MIN_SHARE = 0.9  # of the positions where every operand is a number
NEAR = 24  # earlier lines tried as operands, the nearest first
SPAN = 12  # adjacent lines a sum may cover
SCREEN = 64  # positions a candidate is tried on before the whole line
SCALES = (1.0, 100.0, 1000.0)  # of a quotient
OPS = ("+", "-", "*", "/")


@dataclass(frozen=True)
class Relation:
    """A typed line computed by other lines, and where it holds."""

    axis: int  # 0: the line is a column, 1: a row
    line: int  # its column (axis 0) or row (axis 1)
    op: str  # "+", "-", "*", "/" or "sum"
    a: int  # first operand line (sum: the first line of the range)
    b: int  # second operand line (sum: the last line of the range)
    scale: float  # a quotient's factor (1 otherwise)
    digits: int | None  # ROUND to these decimals (None: exact)
    holds: int  # positions where it holds
    share: float  # holds / positions where every operand is a number
    cells: tuple[tuple[int, int], ...]  # the typed cells where it holds

    def fix(self, cell: tuple[int, int]) -> str:
        """The formula that computes `cell` (which lies on the line)."""
        at = cell[0] if self.axis == 0 else cell[1]

        def ref(line: int) -> str:
            return a1(at, line) if self.axis == 0 else a1(line, at)

        if self.op == "sum":
            body = f"SUM({ref(self.a)}:{ref(self.b)})"
        else:
            body = f"{ref(self.a)}{self.op}{ref(self.b)}"
            if self.scale != 1.0:
                body += f"*{self.scale:g}"
        return f"=ROUND({body},{self.digits})" if self.digits is not None else f"={body}"


def relations(sheet: Sheet, typed: set[tuple[int, int]]) -> dict[tuple[int, int], Relation]:
    """{typed cell: the relation that computes it}, the one holding at most places per cell."""
    numbers = _numbers(sheet)
    out: dict[tuple[int, int], Relation] = {}
    for axis in (0, 1):
        for rel in _derived(numbers, typed, axis):
            for cell in rel.cells:
                old = out.get(cell)
                if old is None or (rel.holds, rel.share) > (old.holds, old.share):
                    out[cell] = rel
    return out


def _numbers(sheet: Sheet) -> dict[tuple[int, int], float]:
    """Every finite number on the sheet: typed, or a formula's cached value."""
    out = {}
    for rc, cell in sheet.cells.items():
        v = cell.value
        number = isinstance(v, (int, float)) and not isinstance(v, bool)
        if cell.kind == "number" and number and math.isfinite(v):
            out[rc] = float(v)
    return out


def _derived(numbers: dict, typed: set, axis: int) -> list[Relation]:
    """The derived lines along `axis` (module doc)."""
    lines: dict[int, dict[int, float]] = {}  # line -> position -> value
    for (r, c), v in numbers.items():
        line, at = (c, r) if axis == 0 else (r, c)
        lines.setdefault(line, {})[at] = v
    mine: dict[int, list[int]] = {}  # line -> positions of its typed numbers
    for r, c in typed:
        line, at = (c, r) if axis == 0 else (r, c)
        if at in lines.get(line, {}):
            mine.setdefault(line, []).append(at)
    found = []
    for line, places in sorted(mine.items()):
        if len(places) < MIN_CELLS:
            continue
        rel = _best(line, sorted(places), lines, axis)
        if rel is not None:
            found.append(rel)
    # a cycle (B = C + D with D = B - C): the later line is the one computed, unless one side
    # is a total over the lines after it (Total, Male, Female reads so too): then either may be,
    # and neither is taken
    by_line = {r.line: r for r in found}

    def loses(r: Relation, o: int) -> bool:
        other = by_line.get(o)
        if other is None or r.line not in _operands(other):
            return False
        ahead = [x for x in (r, other) if x.op == "sum" and min(x.a, x.b) > x.line]
        return bool(ahead) and (r.op == "sum") != (other.op == "sum") or o > r.line

    return [r for r in found if not any(loses(r, o) for o in _operands(r))]


def _operands(r: Relation) -> set[int]:
    return set(range(min(r.a, r.b), max(r.a, r.b) + 1)) if r.op == "sum" else {r.a, r.b}


def _best(line: int, at: list[int], lines: dict, axis: int) -> Relation | None:
    """The relation computing most of `line`'s typed positions `at`, if any holds."""
    y = np.array([lines[line][p] for p in at])  # (n,)
    if np.all(y == y[0]):
        return None
    digits = max(_decimals(v) for v in y)
    tol = 0.5 * 10.0**-digits * (1 + 1e-9) + 1e-9 * np.abs(y)  # (n,)
    best: tuple | None = None
    earlier = sorted((k for k in lines if k < line), reverse=True)[:NEAR]
    if len(earlier) >= 2:
        x = np.array([[lines[k].get(p, np.nan) for k in earlier] for p in at])  # (n, k)
        best = _ops(x, y, tol, earlier)
    for side in (-1, 1):
        cand = _sums(line, side, at, lines, y, tol)
        if cand is not None and (best is None or cand[:2] > best[:2]):
            best = cand
    if best is None:
        return None
    holds, share, op, a, b, scale, ok, got = best
    exact = bool(np.all(np.abs(got[ok] - y[ok]) <= 1e-9 * np.maximum(1.0, np.abs(y[ok]))))
    cells = tuple(
        (p, line) if axis == 0 else (line, p) for p, hit in zip(at, ok, strict=True) if hit
    )
    return Relation(axis, line, op, a, b, scale, None if exact else digits, holds, share, cells)


def _ops(x: np.ndarray, y: np.ndarray, tol: np.ndarray, names: list[int]) -> tuple | None:
    """The best `a op b * scale` over the operand columns of `x` (n, k), screened first."""
    k = x.shape[1]
    off = ~np.eye(k, dtype=bool)  # (k, k): an operand with itself is trivial
    best = None
    for op in OPS:
        for scale in SCALES if op == "/" else (1.0,):
            head = _holds(x[:SCREEN], y[:SCREEN], tol[:SCREEN], op, scale)  # 2 x (n', k, k)
            hits, seen = head[0].sum(0), head[1].sum(0)  # (k, k)
            # necessary for the whole line: its misses so far fit in what MIN_SHARE allows
            keep = off & (seen - hits <= (1 - MIN_SHARE) * len(y))  # (k, k)
            if op in "+*":  # one order of a commutative pair
                keep &= np.array(names)[:, None] < np.array(names)[None, :]
            for i, j in zip(*np.nonzero(keep), strict=True):
                got = _apply(x[:, i], x[:, j], op, scale)  # (n,)
                defined = np.isfinite(got)
                ok = defined & (np.abs(got - y) <= tol)
                holds, n_def = int(ok.sum()), int(defined.sum())
                if holds < MIN_CELLS or holds < MIN_SHARE * n_def:
                    continue
                if _trivial(x[ok, i], x[ok, j], op):
                    continue
                cand = (holds, holds / n_def, op, names[i], names[j], scale, ok, got)
                if best is None or cand[:2] > best[:2]:
                    best = cand
    return best


def _holds(x, y, tol, op: str, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """(ok, defined), each (n, k, k): where `x[:, i] op x[:, j] * scale` gives `y`."""
    f = _apply(x[:, :, None], x[:, None, :], op, scale)  # (n, k, k)
    defined = np.isfinite(f)  # (n, k, k)
    ok = defined & (np.abs(f - y[:, None, None]) <= tol[:, None, None])
    return ok, defined


def _apply(a: np.ndarray, b: np.ndarray, op: str, scale: float) -> np.ndarray:
    """`a op b` (a quotient times `scale`), elementwise; NaN where undefined."""
    with np.errstate(all="ignore"):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        return np.where(b != 0, a / b, np.nan) * scale


def _trivial(a: np.ndarray, b: np.ndarray, op: str) -> bool:
    """An operand that leaves the other unchanged: zeros added (either side) or taken away,
    ones multiplied (either side) or divided by."""
    if len(b) == 0:
        return True
    unit = 0.0 if op in "+-" else 1.0
    return bool(np.all(b == unit)) or (op in "+*" and bool(np.all(a == unit)))


def _sums(line: int, side: int, at: list[int], lines: dict, y, tol) -> tuple | None:
    """The best SUM of 2..SPAN adjacent lines on `side` (-1 before, +1 after) of `line`."""
    run = []
    k = line + side
    while k in lines and len(run) < SPAN:
        run.append(k)
        k += side
    if len(run) < 2:
        return None
    x = np.array([[lines[k].get(p, np.nan) for k in run] for p in at])  # (n, m)
    present = ~np.isnan(x)
    total = np.cumsum(np.nan_to_num(x), axis=1)  # (n, m): sums of the first 1..m lines
    best = None
    for m in range(2, len(run) + 1):
        defined = present[:, :m].any(1)  # (n,)
        ok = defined & (np.abs(total[:, m - 1] - y) <= tol)
        holds, n_def = int(ok.sum()), int(defined.sum())
        if holds < MIN_CELLS or holds < MIN_SHARE * n_def or _one_line(x[ok, :m]):
            continue
        first, last = sorted((run[0], run[m - 1]))
        cand = (holds, holds / n_def, "sum", first, last, 1.0, ok, total[:, m - 1])
        if best is None or cand[:2] > best[:2]:
            best = cand
    return best


def _one_line(x: np.ndarray) -> bool:
    """Every sum is one line's value (the others empty or zero): a copy, not a total."""
    return bool(np.all((np.nan_to_num(x) != 0).sum(1) <= 1))


def _decimals(v: float) -> int:
    """Decimals of a typed value as written (`21.5` -> 1, `32.0` -> 0, `1.53` -> 2), up to 6."""
    frac = np.format_float_positional(float(v), trim="-").partition(".")[2]
    return min(len(frac), 6)
