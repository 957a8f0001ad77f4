"""The operations an answer is computed with, and their executor (`execute`).

An answer is one operation over chosen cells (`OPS`):

- `none`: the cells' own values (one cell, or a list; header cells answer by their text);
- `sum`, `average`, `max`, `min`, `count`: over the chosen data cells;
- `diff`: |a - b| of two cells (HiTab's difference); `opposite`: -a;
- `ratio_down` / `ratio_up`: the smaller over the larger of two cells, or the larger over the
  smaller (a share, or "how many times");
- `part_ratio`: the other cells' sum over the largest (parts of a total, over the total);
- `argmax` / `argmin`: the header naming the largest / smallest of the chosen cells, at the
  first level of their header paths where the cells differ (over a header level);
- `pair_max` / `pair_min`: the same over exactly two cells (a pair comparison).

HiTab labels map onto these by `op_of_labels` (None: outside the set). An execution gives the
answer values, a formula a person can check, e.g. `= B7 / B3 (Ontario 2016 ÷ Canada 2016)`, and
its operands in the order that formula uses them (`answer_formula` writes them as a formula a
sheet computes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fortap.encoding.piece import RC
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.matching import to_value

OPS = ("none", "sum", "average", "diff", "ratio_down", "ratio_up", "part_ratio", "opposite",
       "max", "min", "count", "argmax", "argmin", "pair_max", "pair_min")  # fmt: skip
ARG_OPS = frozenset({"argmax", "argmin", "pair_max", "pair_min"})
TWO_CELL_OPS = frozenset({"diff", "ratio_down", "ratio_up", "pair_max", "pair_min"})
ONE_CELL_OPS = frozenset({"opposite"})
_LABEL_OPS = {
    "none": "none", "sum": "sum", "average": "average", "diff": "diff", "opposite": "opposite",
    "max": "max", "min": "min", "counta": "count", "argmax": "argmax", "argmin": "argmin",
    "pair-argmax": "pair_max", "pair-argmin": "pair_min", "greater_than": "pair_max",
    "less_than": "pair_min",
}  # fmt: skip


def op_of_labels(labels: Sequence[str], answer: Sequence) -> str | None:
    """Our operation for HiTab's aggregation labels (None when outside the set). `div` splits by
    the gold's size (below 1: a share; else a multiple); `max`/`min` answering with text are
    argmax/argmin; `sum` then `div` is a part ratio."""
    labels = tuple(labels)
    if labels in (("sum", "div"), ("div", "sum")):
        return "part_ratio"
    if len(labels) != 1:
        return None
    label = labels[0]
    textual = any(isinstance(to_value(a), str) for a in answer)
    if label == "div":
        gold = to_value(answer[0]) if len(answer) == 1 else None
        return (
            None if not isinstance(gold, float) else ("ratio_down" if abs(gold) < 1 else "ratio_up")
        )
    op = _LABEL_OPS.get(label)
    if op in ("max", "min") and textual:
        return "arg" + op
    return op


@dataclass(frozen=True)
class Execution:
    answer: tuple  # values (float or str)
    formula: str  # e.g. "= B7 / B3"
    named: str  # e.g. "Ontario 2016 ÷ Canada 2016"
    operands: tuple[RC, ...] = ()  # cells used, in the formula's order (see `_arith`, `_arg`)

    def show(self) -> str:
        return f"{self.formula} ({self.named})" if self.named else self.formula


def number(paths: HeaderPaths, rc: RC) -> float | None:
    value = to_value(paths.table.cell(*rc).text) if paths.table.cell(*rc).text else None
    return value if isinstance(value, float) else None


def execute(op: str, cells: Sequence[RC], paths: HeaderPaths) -> Execution | None:
    """Run `op` on `cells` of the table (cells outside it left out); None when it cannot run
    (no cells, no numbers, a zero divisor)."""
    table = paths.table
    cells = [
        rc for rc in dict.fromkeys(cells) if 0 <= rc[0] < table.n_rows and 0 <= rc[1] < table.n_cols
    ]
    if not cells:
        return None
    if op == "none":
        return Execution(tuple(_cell_value(paths, rc) for rc in cells),
                         "= " + ", ".join(paths.a1(rc) for rc in cells),
                         ", ".join(paths.describe(rc) for rc in cells), tuple(cells))  # fmt: skip
    data = [rc for rc in cells if not paths.is_header(rc)]
    numbered = [(rc, v) for rc in data if (v := number(paths, rc)) is not None]
    if not numbered:
        return None
    if op in ARG_OPS:
        return _arg(op, numbered, paths)
    return _arith(op, numbered, paths)


def _cell_value(paths: HeaderPaths, rc: RC):
    value = to_value(paths.table.cell(*rc).text)
    return value if isinstance(value, float) else paths.table.cell(*rc).text


_AGGREGATES = {  # op -> (spreadsheet function, its value over the numbers)
    "sum": ("SUM", sum),
    "average": ("AVERAGE", lambda v: sum(v) / len(v)),
    "max": ("MAX", max),
    "min": ("MIN", min),
    "count": ("COUNTA", lambda v: float(len(v))),
}


def _arith(op: str, numbered: list[tuple[RC, float]], paths: HeaderPaths) -> Execution | None:
    """An arithmetic answer; its operands are the numbered cells as given, a ratio's numerator
    then denominator, a part ratio's parts then its whole."""
    cells = tuple(rc for rc, _ in numbered)
    refs = [paths.a1(rc) for rc in cells]
    names = [paths.describe(rc) for rc, _ in numbered]
    values = [v for _, v in numbered]
    if op in _AGGREGATES:
        fn, value = _AGGREGATES[op]
        named = f"{fn.lower()} of " + "; ".join(names)
        return Execution((value(values),), f"= {fn}({', '.join(refs)})", named, cells)
    if op == "opposite":
        return Execution((-values[0],), f"= -{refs[0]}", f"minus {names[0]}", cells[:1])
    if len(values) < 2:
        return None
    if op == "part_ratio":
        return _part_ratio(values, cells, refs, names)
    if op == "diff":
        formula = f"= ABS({refs[0]} - {refs[1]})"
        named = f"{names[0]} − {names[1]}"
        return Execution((abs(values[0] - values[1]),), formula, named, cells[:2])
    small, large = (0, 1) if abs(values[0]) <= abs(values[1]) else (1, 0)
    top, bottom = (small, large) if op == "ratio_down" else (large, small)
    if values[bottom] == 0:
        return None
    named = f"{names[top]} ÷ {names[bottom]}"
    formula = f"= {refs[top]} / {refs[bottom]}"
    return Execution((values[top] / values[bottom],), formula, named, (cells[top], cells[bottom]))


def _part_ratio(
    values: list[float], cells: tuple[RC, ...], refs: list[str], names: list[str]
) -> Execution | None:
    """The other cells' sum over the largest cell (parts of a total over the total)."""
    whole = max(range(len(values)), key=lambda i: values[i])
    parts = [i for i in range(len(values)) if i != whole]
    if values[whole] == 0:
        return None
    result = sum(values[i] for i in parts) / values[whole]
    formula = f"= ({' + '.join(refs[i] for i in parts)}) / {refs[whole]}"
    named = f"{' + '.join(names[i] for i in parts)} ÷ {names[whole]}"
    return Execution((result,), formula, named, (*(cells[i] for i in parts), cells[whole]))


def _arg(op: str, numbered: list[tuple[RC, float]], paths: HeaderPaths) -> Execution | None:
    """The header naming the best candidate; candidates are taken in table order, so a tie
    goes to the first in the table whatever order the cells came in (as a sheet's MATCH does)."""
    if op in ("pair_max", "pair_min"):
        numbered = numbered[:2]
    numbered = sorted(numbered)
    pick = max if op in ("argmax", "pair_max") else min
    best_rc, _ = pick(numbered, key=lambda item: item[1])
    header = arg_header(best_rc, [rc for rc, _ in numbered], paths)
    text = paths.table.cell(*header).text
    fn = "ARGMAX" if pick is max else "ARGMIN"
    refs = ", ".join(paths.a1(rc) for rc, _ in numbered)
    cells = tuple(rc for rc, _ in numbered)
    formula, named = f"= {fn}({refs}) -> {paths.a1(header)}", f"{text}: {paths.describe(best_rc)}"
    return Execution((text,), formula, named, cells)


def arg_header(best: RC, cells: Sequence[RC], paths: HeaderPaths) -> RC:
    """The header naming `best` among `cells`: along the axis where the cells vary (columns ->
    top paths, rows -> left paths), at the first level where their paths differ."""
    rows, cols = {r for r, _ in cells}, {c for _, c in cells}
    by_cols = len(cols) > len(rows)
    lines = paths.top if by_cols else paths.left
    line_of = (lambda rc: rc[1]) if by_cols else (lambda rc: rc[0])
    fallback = (0, best[1]) if by_cols else (best[0], 0)
    own = lines.get(line_of(best), (fallback,))
    others = [lines.get(line_of(rc), ()) for rc in cells if line_of(rc) != line_of(best)]
    for level, node in enumerate(own):
        if any(len(p) <= level or p[level] != node for p in others):
            return node
    return own[-1]
