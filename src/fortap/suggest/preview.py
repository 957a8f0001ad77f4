"""Value previews: what a candidate formula would show in the target cell, computed by formualizer.

The workbook is loaded into a formualizer engine once (`Previewer.load`: the .xlsx/.xlsm itself,
the .xlsx the reader converted an .xls/.ods to, or, for .csv and anything formualizer cannot
load, a workbook built from the cells fortap read) and evaluated once in full, so every cell
holds its value. A candidate is then evaluated by one of two routes:

- *cells* (the usual one): a scratch engine receives only the cells the candidate reads, with
  the values the loaded engine computed for them, and the candidate at the target's address.
  Its cost grows with the cells read, not with the workbook. The loaded engine cannot do this
  itself: its `evaluate_cell` re-evaluates the cell's whole chain of precedent formulas on every
  call, even when nothing changed (measured 30-340 ms per call on one cell of a 12,000-formula
  model; `bench/suggest_preview.py` measures both routes);
  A defined name of a cell or range is first replaced by the cells it names (the host
  sheet's names, then the workbook's), so it takes this route too;
- *engine*: candidates that read through a table, a name holding a constant or formula, a
  whole column or row, another workbook or several sheets, or that compute their references
  (INDIRECT, OFFSET), are set into the target cell of the loaded engine, evaluated, and the cell
  restored (formula or value).

Cells that depend on the target keep the values the workbook's own formula gave them. A
candidate that reads its own cell previews as `#CIRC!` (formualizer's name for it; Excel warns
about a circular reference instead).
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass

import formualizer as fz

from fortap.sheet.model import Workbook
from fortap.suggest.calc_book import (
    ERROR_TEXT,
    defined_names,
    known_names,
    load_engine,
    reraise_interrupt,
    resolve_names,
    settable,
)

# Functions whose references are computed at evaluation time: only the full engine knows them.
DYNAMIC_FUNCTIONS = frozenset({"INDIRECT", "OFFSET"})
# Above this many cells read, the copy costs more than the engine route would.
MAX_COPY_CELLS = 200_000


Box = tuple[str, int, int, int, int]  # sheet, first row, first col, last row, last col (1-based)


@dataclass(frozen=True)
class Preview:
    """A candidate's value in the target cell, or the Excel error it gives (`route`: cells|engine)."""

    value: str | float | bool | None
    error: str | None
    route: str


def to_preview(raw, route: str) -> Preview:
    """formualizer's Python value -> `Preview` (arrays show their top-left value, as the cell)."""
    while isinstance(raw, list):
        raw = raw[0][0] if raw and isinstance(raw[0], list) and raw[0] else None
    if isinstance(raw, dict) and raw.get("type") == "Error":
        kind = str(raw.get("kind"))
        return Preview(None, ERROR_TEXT.get(kind, f"#{kind.upper()}!"), route)
    if isinstance(raw, bool | str) or raw is None:
        return Preview(raw, None, route)
    if isinstance(raw, int | float):
        return Preview(float(raw), None, route)
    if isinstance(raw, dt.date | dt.time | dt.datetime):
        return Preview(raw.isoformat(), None, route)
    if isinstance(raw, dt.timedelta):
        return Preview(raw.total_seconds() / 86400.0, None, route)
    return Preview(str(raw), None, route)


def _failed(err: BaseException, route: str) -> Preview:
    """A formula formualizer refuses: a self-reference is `#CIRC!`, anything else `#ERROR!`."""
    reraise_interrupt(err)
    return Preview(None, "#CIRC!" if "#CIRC!" in str(err) else "#ERROR!", route)


class Previewer:
    """The workbook loaded into formualizer once; `preview` evaluates one candidate.

    One call at a time (a lock): previews write into the shared scratch and loaded engines."""

    def __init__(self, book: Workbook) -> None:
        self.book = book
        self.extents = {s.name: (s.n_rows, s.n_cols) for s in book.sheets}  # 1-based last cells
        self.written: list[tuple[str, int, int, str]] = []  # accepted formulas, kept on reload
        self.engine = self._fresh_engine()
        self._names = {name.casefold(): name for name in self.engine.sheet_names}
        self._defined = defined_names(self.engine)  # names of cells/ranges -> their A1 text
        self._known = known_names(self.engine)  # every name and table the engine resolves
        self._scratch: fz.Workbook | None = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, book: Workbook) -> Previewer:
        """Load `book`'s file (or its cells) into formualizer and evaluate every formula once."""
        return cls(book)

    def _fresh_engine(self) -> fz.Workbook:
        """A newly loaded engine with the accepted formulas, evaluated in full; if formualizer
        fails doing that (a Rust panic leaves the engine unusable), a newly loaded one left
        unevaluated, whose cells hold the values the file cached."""
        engine = load_engine(self.book)
        try:
            for sheet, row, col, formula in self.written:
                engine.sheet(sheet).set_formula(row, col, formula)
            engine.evaluate_all()
            return engine
        except BaseException as err:
            reraise_interrupt(err)
            return load_engine(self.book)

    def value(self, sheet: str, row: int, col: int) -> Preview:
        """The value a cell holds now (1-based row and column)."""
        with self._lock:
            return to_preview(self.engine.get_value(sheet, row, col), "engine")

    def set_formula(self, sheet: str, row: int, col: int, formula: str) -> None:
        """Write `formula` into the loaded engine for good and bring dependent values up to date."""
        with self._lock:
            self.written.append((sheet, row, col, formula))
            rows, cols = self.extents.get(sheet, (0, 0))
            self.extents[sheet] = (max(rows, row), max(cols, col))
            try:
                self.engine.sheet(sheet).set_formula(row, col, formula)
                self.engine.evaluate_all()
            except BaseException as err:
                reraise_interrupt(err)
                self.engine = self._fresh_engine()

    def preview(self, sheet: str, row: int, col: int, formula: str, route: str = "auto") -> Preview:
        """`formula` evaluated as if written at `sheet` (row, col), 1-based; nothing is kept.

        `route="engine"` forces the loaded engine (the bench's baseline)."""
        with self._lock:
            try:
                plain = resolve_names(formula, sheet, self._defined)
                boxes = plain_boxes(plain, sheet, self._known)
            except BaseException as err:  # formualizer cannot parse it
                reraise_interrupt(err)
                return Preview(None, "#ERROR!", "cells")
            clipped = None if boxes is None else self._clipped(boxes)
            if clipped is None or sum(map(_area, clipped)) > MAX_COPY_CELLS or route == "engine":
                return self._engine_preview(sheet, row, col, formula)
            return self._cells_preview(sheet, row, col, plain, clipped)

    def _clipped(self, boxes: list[Box]) -> list[Box]:
        """Boxes on sheets the workbook has, cut to each sheet's used range (empty ones dropped)."""
        out = []
        for name, r1, c1, r2, c2 in boxes:
            sheet = self._names.get(name.casefold())
            rows, cols = self.extents.get(sheet, (0, 0)) if sheet else (0, 0)
            r2, c2 = min(r2, rows), min(c2, cols)
            if sheet is not None and r1 <= r2 and c1 <= c2:
                out.append((sheet, r1, c1, r2, c2))
        return out

    def _cells_preview(self, sheet: str, row: int, col: int, formula: str, boxes: list[Box]):
        """Copy the boxes' values into the scratch engine, evaluate, then empty it again (one
        scratch workbook is reused: making and dropping one costs ~1 ms, more than the rest)."""
        scratch = self._scratch_engine()
        try:
            for name, r1, c1, r2, c2 in boxes:
                values = self.engine.sheet(name).get_values(fz.RangeAddress(name, r1, c1, r2, c2))
                scratch.sheet(name).set_values_batch(r1, c1, r2 - r1 + 1, c2 - c1 + 1, values)
            scratch.sheet(sheet).set_formula(row, col, formula)
            result = to_preview(scratch.evaluate_cell(sheet, row, col), "cells")
        except BaseException as err:
            result = _failed(err, "cells")
        try:
            for name, r1, c1, r2, c2 in boxes:
                blank = [[None] * (c2 - c1 + 1) for _ in range(r2 - r1 + 1)]
                scratch.sheet(name).set_values_batch(r1, c1, r2 - r1 + 1, c2 - c1 + 1, blank)
            scratch.set_value(sheet, row, col, None)
        except BaseException as err:  # a panic poisons it: the next preview makes a new one
            reraise_interrupt(err)
            self._scratch = None
        return result

    def _scratch_engine(self) -> fz.Workbook:
        """The empty scratch workbook, with every sheet of the workbook (so a reference to an
        existing sheet is never #REF!, and one to a missing sheet always is)."""
        if self._scratch is None:
            self._scratch = fz.Workbook()
            for name in self._names.values():
                self._scratch.add_sheet(name)
        return self._scratch

    def _engine_preview(self, sheet: str, row: int, col: int, formula: str) -> Preview:
        """Set, evaluate, restore in the loaded engine; reload it if formualizer broke it."""
        engine = self.engine
        try:
            own = engine.get_formula(sheet, row, col)
            before = engine.get_value(sheet, row, col)
        except BaseException as err:
            reraise_interrupt(err)
            own, before = None, None
        try:
            engine.sheet(sheet).set_formula(row, col, formula)
            result = to_preview(engine.evaluate_cell(sheet, row, col), "engine")
        except BaseException as err:
            result = _failed(err, "engine")
        # restore: the formula (re-evaluated, so cells read later see its value) or the value
        try:
            if own:
                engine.sheet(sheet).set_formula(row, col, own)
                engine.evaluate_cell(sheet, row, col)
            else:
                engine.set_value(sheet, row, col, settable(before))
        except BaseException as err:  # a panic poisons the engine's lock: load it again
            reraise_interrupt(err)
            self.engine = self._fresh_engine()
        return result


def plain_boxes(formula: str, host: str, known: frozenset[str] = frozenset()) -> list[Box] | None:
    """The rectangles `formula` reads, or None when they are not all plain cells and ranges.

    Names and tables the loaded engine does not know (`known`: casefolded names of its defined
    names and tables) read no cells: the scratch engine gives the same #NAME?/#REF! at once,
    where the loaded engine spends its whole precedent chain (150-570 ms measured) on it."""
    ast = fz.parse(formula)
    if _functions(ast) & DYNAMIC_FUNCTIONS:
        return None
    boxes: list[Box] = []
    for ref in ast.walk_refs():
        if isinstance(ref, fz.CellRef):
            boxes.append((ref.sheet or host, ref.row, ref.col, ref.row, ref.col))
        elif isinstance(ref, fz.RangeRef) and ref.start is not None and ref.end is not None:
            a, b = ref.start, ref.end
            boxes.append(
                (ref.sheet or a.sheet or host, min(a.row, b.row), min(a.col, b.col),
                 max(a.row, b.row), max(a.col, b.col))
            )  # fmt: skip
        elif isinstance(ref, fz.NamedRangeRef | fz.TableRef) and ref.name.casefold() not in known:
            continue
        else:  # known names and tables, whole rows/columns, 3-D and external references
            return None
    return boxes


def _functions(node) -> set[str]:
    out, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n.node_type() == "Function":
            out.add((n.get_function_name() or "").upper())
        stack.extend(n.children())
    return out


def _area(box: Box) -> int:
    return (box[3] - box[1] + 1) * (box[4] - box[2] + 1)
