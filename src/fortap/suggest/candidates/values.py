"""The values a sheet's cells hold, indexed once per sheet for the sources that read values.

`echo` looks up the other cells that hold an anchor's value (a label, a parameter); `induced`
looks up the cells that hold a constant its anchors agree on (a total, a rate), by value within a
tolerance (`numbers_within`: the sorted number keys searched for many constants at once;
`numbers_near` for one), since a constant recovered from `v - x` carries the rounding of `v`.
Both count a value by `key_of`: a text of 2+ characters (stripped), or a number that is not a
small integer (`number_key`). The index holds every cell, hidden ones and the target included:
each caller checks what it finds.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from fortap.suggest.context import SheetContext

SMALL = 100  # integers below this in size are counts and steps (`+1`, `*12`), not cells' values

Key = tuple  # ("t", text) or ("n", `number_key`)


def number_key(v: float) -> float | None:
    """`v` rounded to 12 significant digits; None for what no cell is referenced for: an
    integer below `SMALL` in size (0 included), or not finite."""
    if not math.isfinite(v) or (v == int(v) and abs(v) < SMALL):
        return None
    return float(f"{v:.12g}")


def key_of(cell) -> Key | None:
    """What makes a value worth pointing at: a text of 2+ characters (stripped), or a number that
    is not a small integer (2020.0 and 0.5 are kept); None for anything else (empty, booleans,
    errors, 0, 7)."""
    if cell.kind == "text" and isinstance(cell.value, str) and len(cell.value.strip()) >= 2:
        return ("t", cell.value.strip())
    if cell.kind == "number" and not isinstance(cell.value, bool):
        key = number_key(float(cell.value))
        return None if key is None else ("n", key)
    return None


def values_of(sc: SheetContext) -> dict[Key, list[tuple[int, int]]]:
    """Value key -> the cells (row, col) holding it, in the sheet's cell order; built once per
    sheet."""
    if sc.value_index is None:
        index: dict[Key, list[tuple[int, int]]] = defaultdict(list)
        for rc, cell in sc.sheet.cells.items():
            key = key_of(cell)
            if key is not None:
                index[key].append(rc)
        sc.value_index = dict(index)
        numbers = [key[1] for key in index if key[0] == "n"]
        sc.number_keys = np.sort(np.array(numbers, np.float64))  # (m,): `numbers_within`
    return sc.value_index


def numbers_within(sc: SheetContext, ks: np.ndarray,
                   tol: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The sheet's sorted number keys (m,) (`values_of`), and for each k of `ks` (any shape)
    the span [lo, hi) of those within its `tol` of it (lo, hi shaped as `ks`); a k that is not
    finite gets a span as numpy's search gives it, which the caller drops."""
    values_of(sc)  # builds the sorted keys with the index
    keys = sc.number_keys
    with np.errstate(all="ignore"):  # inf - inf, or an overflow: no finite k, dropped
        lo = np.searchsorted(keys, ks - tol, side="left")
        hi = np.searchsorted(keys, ks + tol, side="right")
    return keys, lo, hi


def numbers_near(sc: SheetContext, k: float, tol: float) -> list[float]:
    """The number keys of the sheet's index (`values_of`) within `tol` of `k`, ascending."""
    keys, lo, hi = numbers_within(sc, np.float64(k), np.float64(tol))
    return [float(x) for x in keys[int(lo) : int(hi)]]
