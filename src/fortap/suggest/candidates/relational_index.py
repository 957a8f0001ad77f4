"""The workbook's key columns, indexed once for the relational source (`relational`).

A *run* is a contiguous stretch of non-empty cells of one column (a table's column between its
first and last row). A *key* is what a lookup matches a cell by, as Excel compares it: a text
(stripped, case-folded: `VLOOKUP` and `MATCH` ignore case), an integral number (an id, a year)
or a date; other numbers (amounts, rates) are not keys, and neither are the numbers of a sheet
of more than `MAX_NUMBERED` cells (a model's grid of figures, not a list of ids). `KeyIndex`
holds every run of the workbook and, per key, the runs that hold it (`postings`); a key that
more than `MAX_POSTINGS` runs hold (a word such as "Total", a year in every header) is too
common to say which table a row belongs to and is dropped. A run's keys and their counts are
computed on first use.

`FunctionUse` counts the functions the workbook's formulas call, per sheet and per formula cell,
so that what the *visible* formulas call (the hidden ones subtracted) says whether a sheet wraps
its lookups in `IFERROR` or whether the workbook uses Excel's newer functions (`XLOOKUP`).

Both are built on first use and kept per `BookContext` (a weak map: they go with the context).
"""

from __future__ import annotations

import math
import re
import weakref
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from fortap.formula import Formula
from fortap.formula.nodes import Const, Func, Op, Ref, walk
from fortap.formula.printer import to_text
from fortap.suggest.context import BookContext, Place

MAX_POSTINGS = 40  # a key held by more runs is too common to point at one table
MAX_CELLS = 250_000  # sheets past this many filled cells in a workbook are not indexed
MAX_NUMBERED = 20_000  # sheets with more cells than this give no number keys
MAX_ROWS = 5_000  # rows of a run whose keys are counted
Key = tuple  # ("t", folded text) | ("n", integral float) | ("d", ISO date)
Run = tuple[str, int, int, int]  # (sheet, col, top, bottom), rows inclusive
IFERROR_MARK, IF_BLANK = "=IFERROR:", "=IFBLANK"  # `marks` beside the function names
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\(")  # a function name and its parenthesis


def key_of(cell) -> Key | None:
    """A cell's lookup key (module doc); None for anything that is not one."""
    if cell.kind == "text" and isinstance(cell.value, str):
        text = cell.value.strip().casefold()
        return ("t", text) if text else None
    if cell.kind == "number" and not isinstance(cell.value, bool):
        v = float(cell.value)
        return ("n", v) if math.isfinite(v) and v == int(v) else None
    if cell.kind == "date":
        return ("d", str(cell.value))
    return None


@dataclass
class KeyIndex:
    """Every run of the workbook and the runs each key stands in (module doc)."""

    runs: list[Run]
    run_at: dict[tuple[str, int, int], int]  # (sheet, row, col) of a value cell -> its run
    postings: dict[Key, list[tuple[int, int]]]  # key -> [(run, row)], rows in sheet order
    complete: frozenset[str] = frozenset()  # sheets whose every text key has its postings
    _keys: dict[int, Counter] = field(default_factory=dict)

    def keys(self, ctx: BookContext, run: int) -> Counter:
        """Key -> how many cells of `run` hold it, in its first `MAX_ROWS` rows (computed once
        per run)."""
        found = self._keys.get(run)
        if found is None:
            sheet, col, top, bottom = self.runs[run]
            cells = ctx.sheets[sheet].sheet.cells
            rows = range(top, min(bottom, top + MAX_ROWS - 1) + 1)
            found = Counter(k for r in rows if (k := key_at(cells, r, col)) is not None)
            self._keys[run] = found
        return found


def key_at(cells, row: int, col: int) -> Key | None:
    """The key of cell (row, col) of a sheet's `cells` mapping (None: empty or no key)."""
    cell = cells.get((row, col))
    return None if cell is None else key_of(cell)


def build_index(ctx: BookContext) -> KeyIndex:
    """The runs of every sheet (column by column) and the postings of their keys."""
    runs: list[Run] = []
    run_at: dict[tuple[str, int, int], int] = {}
    postings: dict[Key, list[tuple[int, int]]] = {}
    budget = MAX_CELLS
    indexed: list[str] = []
    for name in ctx.sheet_names():
        cells = ctx.sheets[name].sheet.cells
        numbers = len(cells) <= MAX_NUMBERED  # a large sheet of numbers is a model, not a list
        filled, keyed, keys = [], [], []  # every non-empty cell; which of them hold a key
        for rc, cell in cells.items():
            if cell.is_empty:
                continue
            if numbers or cell.kind != "number":
                key = key_of(cell)
                if key is not None:
                    keyed.append(len(filled))
                    keys.append(key)
            filled.append(rc)
        budget -= len(filled)
        if budget < 0:
            break
        if not filled:
            continue
        rc = np.array(filled, np.int64)  # (n, 2) row, col
        order = np.lexsort((rc[:, 0], rc[:, 1]))  # (n,) column by column, rows ascending
        at = rc[order]  # (n, 2)
        new = np.ones(len(at), bool)  # (n,) a run starts: another column, or a gap
        new[1:] = (at[1:, 1] != at[:-1, 1]) | (at[1:, 0] != at[:-1, 0] + 1)
        starts = np.flatnonzero(new)
        ends = np.r_[starts[1:], len(at)] - 1
        ids = np.empty(len(at), np.int64)  # (n,) each filled cell's run, in `filled` order
        ids[order] = np.cumsum(new) - 1 + len(runs)
        runs += [(name, int(at[i, 1]), int(at[i, 0]), int(at[j, 0]))
                 for i, j in zip(starts.tolist(), ends.tolist(), strict=True)]  # fmt: skip
        for i, key in zip(keyed, keys, strict=True):
            r, c = filled[i]
            run = int(ids[i])
            run_at[(name, r, c)] = run
            postings.setdefault(key, []).append((run, r))
        indexed.append(name)
    complete = set(indexed)
    for k in [k for k, posts in postings.items() if len({p[0] for p in posts}) > MAX_POSTINGS]:
        if k[0] == "t":
            complete -= {runs[run][0] for run, _ in postings[k]}
        del postings[k]
    return KeyIndex(runs, run_at, postings, frozenset(complete))


@dataclass
class FunctionUse:
    """The functions each formula cell calls, and their counts per sheet (module doc)."""

    per_cell: dict[Place, frozenset[str]]
    per_sheet: dict[str, Counter]

    def visible(self, sheet: str | None, hidden: frozenset[Place]) -> Counter:
        """Function (or `marks` guard) -> visible formula cells calling it, in `sheet` (None: the
        workbook)."""
        if sheet is None:
            total = sum(self.per_sheet.values(), Counter())
        else:
            total = Counter(self.per_sheet.get(sheet, ()))
        for place in hidden:
            if sheet is None or place[0] == sheet:
                total.subtract(self.per_cell.get(place, ()))
        return +total


def build_use(ctx: BookContext) -> FunctionUse:
    """Marks per formula cell, from one parsed member of each R1C1 group (a dragged block
    calls the same functions in every cell)."""
    per_cell: dict[Place, frozenset[str]] = {}
    per_sheet: dict[str, Counter] = {}
    for name in ctx.sheet_names():
        sc = ctx.sheets[name]
        groups = [frozenset(marks(sc.formulas[int(m[0])])) for m in sc.group_cells]
        counts: Counter = Counter()
        for at, g in zip(sc.cells, sc.group.tolist(), strict=True):
            if groups[g]:
                per_cell[(name, *at)] = groups[g]
                counts.update(groups[g])
        per_sheet[name] = counts
    return FunctionUse(per_cell, per_sheet)


def marks(formula: Formula) -> set[str]:
    """The functions a formula calls (upper case, no `_xlfn.`; read from its text, since most
    formulas' trees are built only on demand), and how it guards a lookup: an `IFERROR` second
    argument (`=IFERROR:<its text>`), or `IF(cell="","",...)` (`=IFBLANK`); the `=` keeps those
    apart from function names."""
    out = {name.upper().removeprefix("_XLFN.") for name in _CALL.findall(formula.text)}
    if not ({"IFERROR", "IF"} & out):
        return out
    for n in walk(formula.ast):
        if isinstance(n, Func) and n.name.upper() == "IFERROR" and len(n.args) == 2:
            out.add(IFERROR_MARK + to_text(n.args[1])[1:])  # no leading "="
        if isinstance(n, Func) and n.name.upper() == "IF" and len(n.args) == 3 and _blank(n):
            out.add(IF_BLANK)
    return out


def _blank(n: Func) -> bool:
    """`IF(cell="","",...)`: an empty key gives an empty cell."""
    test, then = n.args[0], n.args[1]
    return (
        isinstance(test, Op) and test.op == "=" and isinstance(test.args[0], Ref)
        and test.args[1] == Const("str", "") and then == Const("str", "")
    )  # fmt: skip


_INDEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_USES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def key_index(ctx: BookContext) -> KeyIndex:
    """The workbook's `KeyIndex`, built on first use."""
    index = _INDEXES.get(ctx)
    if index is None:
        index = _INDEXES[ctx] = build_index(ctx)
    return index


def function_use(ctx: BookContext) -> FunctionUse:
    """The workbook's `FunctionUse`, built on first use."""
    use = _USES.get(ctx)
    if use is None:
        use = _USES[ctx] = build_use(ctx)
    return use
