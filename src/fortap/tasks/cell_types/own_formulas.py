"""A sheet's own formulas as evidence of its derived cells.

A model trained on SAUS reads a sheet as values (`saus.as_saus`), but a sheet that still holds
its formulas says outright which numbers are computed from others. The rule, applied before
the model and winning over it:

- a formula cell is **derived** when its formula reads at least two cells of its own sheet and
  either aggregates them (`SUM`, `SUBTOTAL`, `AVERAGE`, ... over a range or a list) or combines
  them with `+ - * /` (a difference, a share, a product of two cells);
- a copy (`=B5`), one cell scaled by a constant (`=B5*1.1`), or a formula reading another sheet
  or workbook is left to the model: it says nothing about the cell's own table.

A formula written without its cached value (openpyxl, pandas) is computed first
(`read_computed`: formualizer recalculates the file, as the demo's samples are), so the cell
has a number to show.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.filters import KEEP
from fortap.formula.targets import referenced_cells
from fortap.sheet.model import Region, Sheet
from fortap.tasks.cell_types.features import RC
from fortap.tasks.cell_types.labels import CELL_TYPES, Typed
from fortap.tasks.cell_types.saus import as_saus

if TYPE_CHECKING:
    from fortap.tasks.cell_types.cell_typer import CellTyper

AGGREGATES = frozenset({"SUM", "SUBTOTAL", "AVERAGE", "AVERAGEA", "PRODUCT", "SUMPRODUCT",
                        "MAX", "MIN", "MEDIAN", "COUNT", "COUNTA"})  # fmt: skip
COMBINE = frozenset({"+", "-", "*", "/"})
WRAPPERS = frozenset({"ROUND", "ROUNDUP", "ROUNDDOWN", "ABS", "IF", "IFERROR"})  # `=ROUND(B5/C5,2)`
STAMP = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)  # TODAY()/NOW() while computing: one fixed day
T = TypeVar("T")
DERIVED = CELL_TYPES.index("derived")


def derived_by_formula(sheet: Sheet) -> set[tuple[int, int]]:
    """The cells of `sheet` whose own formula makes them derived (module doc)."""
    out = set()
    for rc, cell in sheet.cells.items():
        if cell.formula is not None and cell.kind == "number" and _derives(cell.formula, sheet, rc):
            out.add(rc)
    return out


def _derives(text: str, sheet: Sheet, at: tuple[int, int]) -> bool:
    return derives(text, sheet.name, at, (sheet.n_rows, sheet.n_cols))


def derives(text: str, sheet_name: str, at: tuple[int, int], bounds: tuple[int, int],
            within: Region | None = None) -> bool:  # fmt: skip
    """Whether formula `text` at sheet cell `at` makes its cell derived (module doc), reading
    at least two cells of the `bounds` grid (n_rows, n_cols) that lie in `within` when given
    (its table's region: the formula-labelled set asks for the cell's own table)."""
    try:
        formula = parse_formula(text, sheet_name, at)
    except FortapError:
        return False
    if formula.verdict != KEEP:  # another sheet or book, a name, an array: not this table's
        return False
    read = referenced_cells(formula, bounds, limit=10_000 if within else 2)
    if within is not None:
        read = [rc for rc in read if within.contains(*rc)]
    if len(read) < 2:
        return False
    heads = {t.text.upper() for t in formula.tokens if t.kind == "FUNC"}
    ops = {t.text for t in formula.tokens if t.kind == "OP"}
    return bool(heads & AGGREGATES) or (bool(ops & COMBINE) and heads <= WRAPPERS)


def type_cells(typer: CellTyper, sheet: Sheet) -> tuple[dict[RC, Typed], set[RC]]:
    """`typer`'s types of `sheet` read as a SAUS sheet (`saus.as_saus`), with the cells its own
    formulas make derived put over them (probability 1); and those cells."""
    typed = typer.type_sheet(as_saus(sheet))  # sheet coordinates
    own = derived_by_formula(sheet)
    typed.update({rc: (DERIVED, 1.0) for rc in own})
    return typed, own


def uncached(sheet: Sheet) -> bool:
    """Whether some formula of `sheet` has no cached value (a file openpyxl or pandas wrote)."""
    return any(c.formula is not None and c.value is None for c in sheet.cells.values())


def read_computed(book: Path, read: Callable[[Path], T]) -> T:
    """`read` of a copy of the .xlsx `book` whose formulas formualizer has computed (the copy
    lives in a temporary folder while `read` runs)."""
    if book.suffix.lower() not in (".xlsx", ".xlsm"):
        raise FortapError(f"{book}: its formulas have no cached values, and only an .xlsx can be "
                          "computed here; open and save it in a spreadsheet program first")  # fmt: skip
    import formualizer

    try:
        result = formualizer.recalculate_xlsx_bytes(book.read_bytes(),
                                                    deterministic_timestamp_utc=STAMP)  # fmt: skip
    except Exception as err:  # noqa: BLE001 - the engine's own error types, named below
        raise FortapError(f"{book}: its formulas have no cached values and could not be "
                          f"computed ({type(err).__name__}: {err})") from None  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="fortap-computed-") as folder:
        copy = Path(folder) / book.name
        copy.write_bytes(result["bytes"])
        return read(copy)
