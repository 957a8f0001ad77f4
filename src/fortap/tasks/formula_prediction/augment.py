"""Augmentations that change a table's surface and keep its target formula exactly right.

A `Target` is one formula-prediction example before serialisation: the table, the target cell
(table-relative) and its gold `Formula`. Each augmentation returns a new `Target` whose gold
formula, evaluated on the new table, reads the same cells as before (or, for `perturb_numbers`,
cells of the same kind), or None when it does not apply. Here, the two that leave every cell
where it is (the formula is unchanged):

- `swap_synonyms`: header and label words replaced by synonyms (`synonyms.swap_words`), except
  in text the formula reads;
- `perturb_numbers`: the data numbers scaled by one factor or jittered one by one, keeping
  each number's sign, decade (`floor(log10 |x|)`) and integer-ness; header cells, the target,
  zeros and year-like integers (1900..2100) stay, so the formula still reads numbers where it
  read numbers.

Both change only the cells an example shows (`shown_cells`), which keeps a draw cheap on a
large table. The two that move cells (empty lines inserted, the table transposed) live in
`move_lines`.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from decimal import Decimal
from typing import NamedTuple

from fortap.encoding.piece import RC
from fortap.encoding.selection import is_header
from fortap.formula import Formula
from fortap.formula.nodes import Ref, walk
from fortap.formula.references import ref_box
from fortap.sheet.model import Cell
from fortap.table.model import Table
from fortap.tasks.formula_prediction.synonyms import has_synonyms, swap_words

SCALE = (0.5, 2.0)  # range of the one factor of "scale"
JITTER = 0.25  # each number times 1 + u, u uniform in [-JITTER, JITTER]
YEARS = (1900, 2100)  # integers in this range look like years: left alone
MAX_DECIMALS = 6


class Target(NamedTuple):
    """One example before serialisation: `table`, target cell `rc` (table-relative), `formula`
    (its gold formula, addresses on the sheet)."""

    table: Table
    rc: RC
    formula: Formula


# --- header synonyms ----------------------------------------------------------------------------


def shown_cells(table: Table, rc: RC) -> list[RC]:
    """The cells an example of target `rc` can show (`select_cells`: the header cells and the
    target's row and column), in row-major order. Only these are worth changing: the rest of
    the table is never serialised, and stays as it is wherever the lines move."""
    r0, c0 = rc
    columns = sorted({*range(min(table.left_header_cols, table.n_cols)), c0})
    out = []
    for r in range(table.n_rows):
        if r < table.top_header_rows or r == r0:
            out += [(r, c) for c in range(table.n_cols)]
        else:
            out += [(r, c) for c in columns]
    return out


def _with_cells(target: Target, changes: dict[RC, Cell]) -> Target | None:
    """The target on its table with some cells replaced; None when there are none."""
    if not changes:
        return None
    rows = list(target.table.cells)
    for r in {r for r, _ in changes}:
        rows[r] = tuple(changes.get((r, c), cell) for c, cell in enumerate(rows[r]))
    return target._replace(table=replace(target.table, cells=tuple(rows)))


def _read_boxes(target: Target) -> list[tuple[int, int, int, int]]:
    """Table-relative (top, left, bottom, right) of every reference of the formula."""
    top, left = target.table.region.top, target.table.region.left
    boxes = [ref_box(n) for n in walk(target.formula.ast) if isinstance(n, Ref)]
    return [(t - top, lf - left, b - top, rt - left) for t, lf, b, rt in filter(None, boxes)]


def swap_synonyms(target: Target, rng: random.Random) -> Target | None:
    """Every shown text cell (not a formula, not read by the formula) with a listed word gets
    synonyms (`swap_words`)."""
    table, boxes = target.table, _read_boxes(target)
    changes = {}
    for r, c in shown_cells(table, target.rc):
        cell = table.cells[r][c]
        if cell.kind != "text" or cell.formula is not None or not has_synonyms(str(cell.value)):
            continue
        if any(t <= r <= b and lf <= c <= rt for t, lf, b, rt in boxes):
            continue  # text the formula reads (a label it compares or joins) stays
        changes[r, c] = replace(cell, value=swap_words(str(cell.value), rng))
    return _with_cells(target, changes)


# --- numbers -----------------------------------------------------------------------------------


def _perturbable(table: Table, r: int, c: int, target: RC) -> bool:
    cell = table.cells[r][c]
    v = cell.value
    if cell.kind != "number" or isinstance(v, bool) or not isinstance(v, int | float):
        return False
    if v == 0 or not math.isfinite(v) or (r, c) == target or is_header(table, r, c):
        return False
    return not (float(v).is_integer() and YEARS[0] <= v <= YEARS[1])


def perturbed(value: float, factor: float) -> float:
    """`value * factor` kept in `value`'s decade (`floor(log10 |x|)`), with its sign, its
    integer-ness and at most its decimals (`MAX_DECIMALS` at most); a decimal too small for
    its own decimals comes back unchanged."""
    x = abs(value)
    decade = math.floor(math.log10(x))
    low, high = 10.0**decade, 10.0 ** (decade + 1)
    if float(value).is_integer():  # whole numbers are >= 1, so the decade's ends are whole
        new = min(max(round(x * factor), round(low)), round(high) - 1)
        return math.copysign(float(new), value)
    decimals = min(MAX_DECIMALS, max(1, -Decimal(repr(float(value))).as_tuple().exponent))
    step = 10.0**-decimals
    if step > low:
        return value
    new = min(max(round(x * factor, decimals), low), high - step)
    if new.is_integer():  # a decimal that rounded to a whole number: one step off it
        new = new + step if new + step < high else new - step
    return math.copysign(round(new, decimals), value)


def perturb_numbers(target: Target, rng: random.Random) -> Target | None:
    """The shown data numbers scaled by one factor (half the draws) or jittered one by one."""
    table = target.table
    scale = rng.random() < 0.5
    factor = math.exp(rng.uniform(math.log(SCALE[0]), math.log(SCALE[1])))
    changes = {}
    for r, c in shown_cells(table, target.rc):
        if _perturbable(table, r, c, target.rc):
            f = factor if scale else 1.0 + rng.uniform(-JITTER, JITTER)
            value = perturbed(table.cells[r][c].value, f)
            if value != table.cells[r][c].value:
                changes[r, c] = replace(table.cells[r][c], value=value)
    return _with_cells(target, changes)  # None when no shown number moved
