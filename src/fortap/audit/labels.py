"""Labels among the typed numbers: years and codes that head a block, not numbers missing a formula.

A model's year row (2007, 2010, ..., 2050 over a block of formulas) or a table's code column
(1, 2, 3, ... beside its rows) holds typed integers, and a block's run of formulas passes
through them: the structure sees a typed number in a run of formulas, and an engine's formula
over another block headed by the same years gives the same value (`=O470+(O426-O470)*0.35`
gives 2,050 at O449 because O470 heads its own block with 2050 too). Such a cell is a label. A
typed number is one when it lies on a *label line*: `LINE_CELLS` or more adjacent cells along a
row or a column, each an integer (typed, or the cached value of a formula that is no total), all
- years (1800-2100, as `table.layout.is_year` reads them), strictly increasing or strictly
  decreasing (the newest year first), or
- codes: counting up one by one from 0 or 1 (observation counts 10, 11, 12 are data).
A line that a formula is dragged along (1990, 1991, ..., 1995, `=A11+1`, `=A12+1`, ...) is
computed, not typed: only its first cell, the seed, is a label, and the typed years after it
stay typed numbers (the TASI key counts them as missing formulas).

Header cells of `table.detect_tables` are not used: on the TASI key's sheets 26 of its 746
typed header cells are cells of the key (typed where a formula should be), against 1 of the 795
these lines find, and it costs about 2 s on `model2.xlsx`.
"""

from __future__ import annotations

import re

from fortap.audit.aggregates import total_range
from fortap.audit.structure import AXES, is_number, runs
from fortap.formula.nodes import Func, Op
from fortap.sheet.model import Sheet
from fortap.suggest.api import SheetContext
from fortap.table.layout import is_year

_YEAR = re.compile(r"^\s*\d{4}\s*$")  # a year typed as text, spaces around it
LINE_CELLS = 3  # cells a label line needs: two years side by side are as often two figures


def labels(sc: SheetContext, typed: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The typed numbers of `typed` that are labels (module doc)."""
    s = sc.sheet
    whole = {rc: v for rc in s.cells if (v := _whole(s, *rc)) is not None and not _total(sc, rc)}
    out: set[tuple[int, int]] = set()
    for axis in AXES:
        for run in runs(set(whole), axis):
            for line in _lines(run.cells, [whole[rc] for rc in run.cells]):
                seed_only = _dragged(sc, line)
                out |= {rc for i, rc in enumerate(line) if rc in typed and not (seed_only and i)}
    return out


def _total(sc: SheetContext, cell: tuple[int, int]) -> bool:
    """A total (`aggregates.total_range`) and nothing more (`=SUM(B2:C2)`, `=+SUM(B2:C2)`): its
    value is a sum, whatever year it may look like (a row of totals 1,944, 1,937, 1,841 is no
    line of years). A code counted on from one (`=MAX(A$2:A2)+1`) is no total here."""
    k = sc.index.get(cell)
    if k is None or total_range(f := sc.formulas[k], sc.sheet.name) is None:
        return False
    root = f.ast
    while isinstance(root, Op) and root.op in ("+", "-") and len(root.args) == 1:
        root = root.args[0]  # a sign before the total (`=+SUM(...)`, Lotus's habit)
    return isinstance(root, Func)


def _whole(sheet: Sheet, row: int, col: int) -> float | None:
    """The integer the cell shows (typed, or a formula's cached number), or the year a text
    holds (" 1999 ": a header typed as text, which a typed 2000 may continue); else None."""
    cell = sheet.cell(row, col)
    if cell.kind == "text" and cell.formula is None:
        return float(cell.value) if _YEAR.match(str(cell.value)) and is_year(cell) else None
    ok = is_number(sheet, row, col) or cell.formula is not None and cell.kind == "number"
    return cell.value if ok and isinstance(cell.value, float) and cell.value.is_integer() else None


def _lines(cells: tuple[tuple[int, int], ...], values: list[float]) -> list[list[tuple[int, int]]]:
    """The stretches of `cells` (adjacent, showing the integers `values`) that are year or
    code lines."""
    out, start, direction = [], 0, 0
    years = [1800 <= v <= 2100 for v in values]  # as `table.layout.is_year` reads a number
    for i in range(1, len(cells) + 1):
        step = 0  # +1 or -1: the direction cell i continues the stretch in; 0: it does not
        if i < len(cells) and years[i - 1] and years[i] and values[i] != values[i - 1]:
            step = 1 if values[i] > values[i - 1] else -1  # newest year first is common too
        elif i < len(cells) and values[i] == values[i - 1] + 1:
            step = 1
        if step and direction in (0, step):
            direction = step
            continue
        if i - start >= LINE_CELLS and (all(years[start:i]) or values[start] in (0, 1)):
            out.append(list(cells[start:i]))
        start, direction = i, 0
    return out


def _dragged(sc: SheetContext, line: list[tuple[int, int]]) -> bool:
    """Whether two adjacent cells of the line hold copies of one formula (`=A11+1`, `=A12+1`)."""
    texts = [sc.r1c1s[sc.group[k]] if (k := sc.index.get(rc)) is not None else None for rc in line]
    return any(t is not None and t == u for t, u in zip(texts, texts[1:], strict=False))
