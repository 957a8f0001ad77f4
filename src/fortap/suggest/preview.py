"""Value previews: what a candidate formula would show in the target cell, computed by formualizer.

The workbook is loaded into a formualizer engine once (`Previewer.load`: the .xlsx/.xlsm itself,
the .xlsx the reader converted an .xls/.ods to, or, for .csv and anything formualizer cannot
load, a workbook built from the cells fortap read) and evaluated once in full, so every cell
holds its value. A candidate is then evaluated by one of two routes:

- *cells* (the usual one): a scratch engine receives only the cells the candidate reads, with
  the values the loaded engine computed for them (cells the caller hides read as empty), and
  the candidate at the target's address. Its cost grows with the cells read, not with the
  workbook. The loaded engine cannot do this itself: its `evaluate_cell` re-evaluates the
  cell's whole chain of precedent formulas on every call, even when nothing changed (measured
  30-340 ms per call on one cell of a 12,000-formula model; `bench/suggest_preview.py`
  measures both routes). A defined name of a cell or range is first replaced by the cells it
  names (the host sheet's names, then the workbook's), so it takes this route too;
- *engine*: candidates that read through a table, a name holding a constant or formula, a
  whole column or row or several sheets, or that compute their references (INDIRECT, OFFSET),
  are set into the target cell of the loaded engine, evaluated, and the cell's formula put
  back. The cell is not evaluated again: until the engine next computes it, reads of it give
  the value it held before (one evaluation less per preview; a target whose formula is
  volatile, OFFSET or INDIRECT, cost ~170 ms each on a 11,000-formula model).

Each preview's work is bounded (`preview_budget.PreviewLimits`, the same for every workbook):
the cells copied, the precedent chain the loaded engine walks, and the engine-route time one
suggestion call spends; a preview cut by a bound says why ("not computed: ...").

Each answer is judged as evidence (`preview_value`): on the cells route, an error that only
comes from the cells read is not the candidate's own, and where the engine's value of an input
is an error but the file cached a value, the one cell is computed again from the cached
values. formualizer's Rust panics are caught, and their text is kept off stderr
(`calc_book.quiet_panics`).

Cells that depend on the target keep the values the workbook's own formula gave them.
"""

from __future__ import annotations

import dataclasses
import threading
import time

import formualizer as fz

from fortap.sheet.model import Workbook
from fortap.suggest.calc_book import (
    cached_value,
    defined_names,
    external_link,
    is_date_format,
    known_names,
    load_engine,
    quiet_panics,
    reraise_interrupt,
    resolve_names,
    settable,
)
from fortap.suggest.preview_array import NO_ARRAY_ENGINE, ArrayPreviews
from fortap.suggest.preview_boxes import Box, area, boxes_of, functions, inside, is_error
from fortap.suggest.preview_budget import (
    CallBudget,
    EngineCosts,
    PreviewLimits,
    chain_longer,
    chain_reason,
    cut_by_chain,
    over_time,
)
from fortap.suggest.preview_value import (
    ENGINE_FAILURES,
    Preview,
    as_written,
    failed,
    judged_engine,
    not_computed,
    to_preview,
)

# Functions whose references are computed at evaluation time: only the full engine knows them.


class Previewer:
    """The workbook loaded into formualizer once; `preview` evaluates one candidate.

    One call at a time (a lock): previews write into the shared scratch and loaded engines."""

    def __init__(self, book: Workbook, limits: PreviewLimits | None = None) -> None:
        self.book = book
        self.limits = limits or PreviewLimits()
        self.costs = EngineCosts()  # this workbook's engine-route preview times
        self.sheets = {s.name: s for s in book.sheets}
        self.extents = {s.name: (s.n_rows, s.n_cols) for s in book.sheets}  # 1-based last cells
        self.written: list[tuple[str, int, int, str]] = []  # accepted formulas, kept on reload
        self.arrays = ArrayPreviews(book)  # array formulas (formulon) and tables
        with quiet_panics():
            self.engine = self._fresh_engine()
            self._names = {name.casefold(): name for name in self.engine.sheet_names}
            self._defined = defined_names(self.engine)  # names of cells/ranges -> their A1 text
            self._known = known_names(self.engine)  # every name and table the engine resolves
        self.arrays.wait()  # formulon, loading beside it for a workbook with array formulas
        self._functions: dict[str, bool] = {}  # function name -> whether formualizer knows it
        self._scratch: fz.Workbook | None = None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, book: Workbook, limits: PreviewLimits | None = None) -> Previewer:
        """Load `book`'s file (or its cells) into formualizer and evaluate every formula once."""
        return cls(book, limits)

    def _fresh_engine(self) -> fz.Workbook:
        """A newly loaded engine with the accepted formulas, evaluated in full; if formualizer
        fails doing that (a Rust panic leaves the engine unusable), a newly loaded one left
        unevaluated, whose cells hold the values the file cached."""
        self._stale: dict[tuple[str, int, int], object] = {}  # cell put back -> value before
        engine = load_engine(self.book)
        try:
            for sheet, row, col, formula in self.written:
                engine.sheet(sheet).set_formula(row, col, formula)
            engine.evaluate_all()
            if self.arrays.settle(engine):  # tables' formulas, array values (preview_array)
                engine.evaluate_all()
            return engine
        except BaseException as err:
            reraise_interrupt(err)
            return load_engine(self.book)

    def dates(self, sheet: str, row: int, col: int) -> bool:
        """Whether the cell (1-based) has a date or time number format."""
        host = self.sheets.get(sheet)
        return host is not None and is_date_format(host.cell(row - 1, col - 1).style.number_format)

    def value(self, sheet: str, row: int, col: int) -> Preview:
        """The value a cell holds now (1-based row and column)."""
        with self._lock, quiet_panics():
            key = (sheet, row, col)
            raw = self._stale[key] if key in self._stale else self.engine.get_value(sheet, row, col)
        return to_preview(raw, "engine", self.dates(sheet, row, col))

    def set_formula(self, sheet: str, row: int, col: int, formula: str) -> None:
        """Write `formula` into the loaded engine for good and bring dependent values up to date."""
        with self._lock, quiet_panics():
            self.written.append((sheet, row, col, formula))
            rows, cols = self.extents.get(sheet, (0, 0))
            self.extents[sheet] = (max(rows, row), max(cols, col))
            try:
                self.engine.sheet(sheet).set_formula(row, col, formula)
                self.engine.evaluate_all()
                self._stale = {}
            except BaseException as err:
                reraise_interrupt(err)
                self.engine = self._fresh_engine()

    def preview(
        self,
        sheet: str,
        row: int,
        col: int,
        formula: str,
        route: str = "auto",
        hidden: frozenset = frozenset(),
        budget: CallBudget | None = None,
    ) -> Preview:
        """`formula` evaluated as if written at `sheet` (row, col), 1-based; nothing is kept.

        `hidden`: 0-based (sheet, row, col) places read as empty on the cells route;
        `route="engine"` forces the loaded engine (the bench's baseline); `budget`: the
        suggestion call's engine-route time (None: not limited, nor recorded)."""
        dates = self.dates(sheet, row, col)
        array = self.arrays.holds(sheet, row, col, formula)
        by_formulon = array and self.arrays.engine == "formulon"
        written, formula = formula, self.arrays.resolve(formula, sheet, row, col)
        with self._lock, quiet_panics():
            if external_link(formula):
                return not_computed("engine", "it reads another workbook (an external link)")
            try:
                plain = resolve_names(formula, sheet, self._defined)
                ast = fz.parse(plain)
            except BaseException as err:
                reraise_interrupt(err)
                return not_computed("cells", "the preview engine cannot read this formula")
            unknown = sorted(f for f in functions(ast) if not self._knows(f))
            if unknown and not by_formulon:
                return not_computed("cells", f"the preview engine has no {', '.join(unknown)}")
            boxes = boxes_of(ast, sheet, self._known)
            clipped = None if boxes is None else self._clipped(boxes)
            copied = None if clipped is None else sum(map(area, clipped))
            if copied is None or copied > self.limits.copy_cells or route == "engine":
                shown = self._within(
                    budget,
                    lambda: judged_engine(self._engine_preview(sheet, row, col, formula, dates)),
                )
            else:
                own = any(inside(b, sheet, row, col) for b in boxes)
                shown = self._cells_preview(
                    sheet, row, col, plain, clipped, hidden, dates, own, by_formulon
                )
            if array:  # formulon evaluates it on the cells route only (`preview_array`)
                note = shown.note if shown.route == "formulon" or shown.note else NO_ARRAY_ENGINE
                shown = dataclasses.replace(shown, array=True, note=note)
            return as_written(shown, written)

    def _within(self, budget, evaluate) -> Preview:
        """`evaluate()` (a preview through the loaded engine) inside the call's `budget`, its
        time recorded in the budget and in this workbook's engine `costs`."""
        costs = self.costs
        if budget is not None and not costs.allows(budget):
            return not_computed("engine", over_time(costs, budget))
        start = time.perf_counter()
        shown = evaluate()
        if budget is not None:
            ms = 1000 * (time.perf_counter() - start)
            budget.spent_ms += ms
            if not cut_by_chain(shown.note, self.limits.chain_cells):
                costs.add(ms)
        return shown

    def _knows(self, function: str) -> bool:
        """Whether formualizer has `function` (an unknown one gives #NAME? with no arguments)."""
        if function not in self._functions:
            probe = self._scratch_engine()
            name = next(iter(self._names.values()))
            try:
                probe.set_formula(name, 1, 1, f"={function}()")
                raw = probe.evaluate_cell(name, 1, 1)
                self._functions[function] = not (
                    isinstance(raw, dict) and raw.get("kind") == "Name"
                )
            except BaseException as err:  # arity refused at parse time: it knows the name
                reraise_interrupt(err)
                self._functions[function] = True
            try:
                probe.set_value(name, 1, 1, None)
            except BaseException as err:
                reraise_interrupt(err)
                self._scratch = None
        return self._functions[function]

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

    def _cells_preview(self, sheet, row, col, formula, boxes, hidden, dates, own, array=False):
        """The scratch engine's value, judged: the candidate's own error, inputs holding
        errors, inputs the engine could not compute (then again from the file's cached values).
        `array`: formulon evaluates it over the same values (`preview_array`)."""
        grids = [self._grid(box, hidden) for box in boxes]
        shown = self._scratch_eval(sheet, row, col, formula, boxes, grids, dates, array)
        if shown.error is None:
            return shown
        if own:
            return dataclasses.replace(shown, note="it reads its own cell", own_error=True)
        cached = [self._cached(box, grid) for box, grid in zip(boxes, grids, strict=True)]
        if any(c is not g for c, g in zip(cached, grids, strict=True)):
            again = self._scratch_eval(sheet, row, col, formula, boxes, cached, dates, array)
            note = "from the file's cached values of inputs the engine could not compute"
            if again.error is None:
                return dataclasses.replace(again, note=note)
            shown, grids = again, cached
        errors = {
            to_preview(v, "cells").error for g in grids for line in g for v in line if is_error(v)
        }
        failed = sorted(errors & ENGINE_FAILURES.keys())
        if failed:  # the engine could not compute its inputs, and the file cached nothing
            return not_computed("cells", f"the cells it reads: {ENGINE_FAILURES[failed[0]]}")
        if errors:
            return dataclasses.replace(shown, note="the cells it reads hold errors")
        if shown.error in ENGINE_FAILURES:
            return not_computed("cells", ENGINE_FAILURES[shown.error])
        return dataclasses.replace(shown, own_error=True)

    def _grid(self, box: Box, hidden: frozenset) -> list[list]:
        """The loaded engine's values of `box`, hidden places emptied."""
        name, r1, c1, r2, c2 = box
        values = self.engine.sheet(name).get_values(fz.RangeAddress(name, r1, c1, r2, c2))
        for (at, r, c), before in self._stale.items():  # cells put back, not computed again
            if at == name and r1 <= r <= r2 and c1 <= c <= c2:
                values[r - r1][c - c1] = before
        for place in hidden:
            r, c = place[1] + 1, place[2] + 1
            if place[0] == name and r1 <= r <= r2 and c1 <= c <= c2:
                values[r - r1][c - c1] = None
        return values

    def _cached(self, box: Box, grid: list[list]) -> list[list]:
        """`grid` with each error the file did not cache replaced by the value it cached (the
        same object when there is none)."""
        host = self.sheets.get(box[0])
        out = None
        for i, line in enumerate(grid):
            for j, v in enumerate(line):
                cell = host.cells.get((box[1] + i - 1, box[2] + j - 1)) if host else None
                if is_error(v) and cell is not None and cell.kind not in ("error", "empty"):
                    out = out or [list(x) for x in grid]
                    out[i][j] = cached_value(cell)
        return grid if out is None else out

    def _scratch_eval(self, sheet, row, col, formula, boxes, grids, dates, array=False):
        """Copy the grids into the scratch engine, evaluate, then empty the target again (one
        scratch workbook is reused: making and dropping one costs ~1 ms, more than the rest).

        The grids copied stay: a later preview overwrites every box it reads (boxes are cut
        to the used ranges, and only cells inside them were ever written), so emptying them
        would only double the copy's cost."""
        if array and (shown := self.arrays.evaluate(sheet, row, col, formula, boxes, grids, dates)):
            return shown
        scratch = self._scratch_engine()
        try:
            for (name, r1, c1, r2, c2), grid in zip(boxes, grids, strict=True):
                scratch.sheet(name).set_values_batch(r1, c1, r2 - r1 + 1, c2 - c1 + 1, grid)
            scratch.sheet(sheet).set_formula(row, col, formula)
            result = to_preview(scratch.evaluate_cell(sheet, row, col), "cells", dates)
        except BaseException as err:
            result = failed(err, "cells")
        try:
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

    def _engine_preview(self, sheet: str, row: int, col: int, formula: str, dates: bool):
        """Set, evaluate, restore in the loaded engine; reload it if formualizer broke it."""
        engine = self.engine
        try:
            own = engine.get_formula(sheet, row, col)
            before = engine.get_value(sheet, row, col)
        except BaseException as err:
            reraise_interrupt(err)
            own, before = None, None
        chain = self.limits.chain_cells
        try:
            engine.sheet(sheet).set_formula(row, col, formula)
            if chain is not None and chain_longer(engine, sheet, row, col, chain):
                result = not_computed("engine", chain_reason(chain))
            else:
                result = to_preview(engine.evaluate_cell(sheet, row, col), "engine", dates)
        except BaseException as err:
            result = failed(err, "engine")
        # restore: the formula (its value until the engine computes it again: `_stale`) or the value
        try:
            if own:
                engine.sheet(sheet).set_formula(row, col, own)
                self._stale.setdefault((sheet, row, col), before)
            else:
                engine.set_value(sheet, row, col, settable(before))
        except BaseException as err:  # a panic poisons the engine's lock: load it again
            reraise_interrupt(err)
            self.engine = self._fresh_engine()
        return result
