"""Previews of array formulas and structured references: `ArrayPreviews`.

An array formula (entered with Ctrl+Shift+Enter, `t="array"` in the file) evaluates each range
it reads as an array: `=SUM(ROW($C$5:$C$12)*C5:C12)` multiplies every row number by its value.
A candidate is an array formula when the workbook holds it as one (`holds`): its `$`-aware
R1C1 text at the target is that of one of the workbook's array formula cells, so a copy of an
array formula is one; the download writes it back as one (`sheet.export`).

formualizer, the preview engine, evaluates an array formula as an ordinary one: `ROW` and `LEN`
of a range give a single value. formulon, an Excel 365 engine compiled to WebAssembly (the
optional extra `arrays`), evaluates them as Excel does. It takes the cells route's place for an
array candidate (`Previewer._cells_preview`): the values the preview engine holds for the cells it
reads (hidden ones emptied, the file's cached values where the engine failed) are copied into
a new formulon workbook, up to `MAX_ARRAY_CELLS` of them (each run of a column as one array
constant that spills, as one write per cell costs more), and the candidate is evaluated there
(`evaluate_formula_array`; the cell shows the array's top-left value). formulon
is not given the whole workbook: it recomputes every chain its own way, slower than the file's
cached values are read and, on `../shared/data`'s largest models, further from them (the bench's
`--real` cases). Its WebAssembly module compiles once per process, in a thread beside the
preview engine's load of a workbook that holds array formulas. Without formulon, or over the
cells route's limits, an array candidate is previewed by formualizer with a note saying so.
The preview engine itself takes the file's cached value for every array formula cell whose
value it computes otherwise (`settle`), so formulas reading them see Excel's values.

Structured references are resolved to the A1 ranges they read (`formula.structured`) before
any engine sees them, the workbook's own formulas (`resolved`) as well as the candidates:
formualizer loads no table definitions and reads `Sales[[#This Row],[Qty]]` as `#CIRC!`.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import threading

from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.structured import TableIndex, resolve_structured
from fortap.sheet.model import Cell, Workbook
from fortap.suggest.calc_book import (
    ERROR_KIND,
    ERROR_TEXT,
    cached_value,
    reraise_interrupt,
    to_serial,
)
from fortap.suggest.preview_value import Preview, failed, to_preview

SETTLE_FORMULAS = 2_000  # table formulas set again at load, at most (`ArrayPreviews.settle`)
MAX_ARRAY_CELLS = 5_000  # values copied into formulon per preview, at most (~0.02 ms each)
RUN_CHARS = 6_000  # characters of one array constant written into formulon, at most
CONSTANT_ERRORS = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"})
ERROR_CODES = {"#NULL!": 0, "#DIV/0!": 1, "#VALUE!": 2, "#REF!": 3, "#NAME?": 4, "#NUM!": 5,
               "#N/A": 6, "#SPILL!": 8, "#CALC!": 9}  # formulon's codes  # fmt: skip
NO_ARRAY_ENGINE = (
    "computed without array semantics (install fortap[arrays] for Excel's array evaluation)"
)


def formulon_installed() -> bool:
    return importlib.util.find_spec("formulon") is not None


class ArrayPreviews:
    """A workbook's array formulas and tables, and whether formulon evaluates its array
    candidates (`engine`: "formulon", or "formualizer" when it is not installed or the workbook
    holds no array formula). Rows and columns are 1-based, as in `Previewer`."""

    def __init__(self, book: Workbook, engine: str | None = None) -> None:
        self.tables = TableIndex.from_workbook(book)
        self.resolved = _resolved(book, self.tables)
        self.cached = _cached_arrays(book)
        self.r1c1s = frozenset(_array_r1c1s(book))
        self.sheet_names = [s.name for s in book.sheets]
        self._scratch = None  # formulon's workbook for previews, made at the first one
        self._written: dict = {}  # the values it holds: (sheet, row, col) 0-based -> value
        self._ready = False
        self._loading: threading.Thread | None = None
        wanted = engine or ("formulon" if self.r1c1s and formulon_installed() else "formualizer")
        if wanted == "formulon":  # compiles beside the preview engine's own load (module doc)
            self._loading = threading.Thread(target=self._warm, daemon=True)
            self._loading.start()

    def _warm(self) -> None:
        try:
            import formulon  # the optional `arrays` extra, imported only for array formulas

            formulon.Workbook.create_empty().close()  # compiles the WebAssembly module
            self._ready = True
        except BaseException as err:
            reraise_interrupt(err)

    def wait(self) -> None:
        """Wait for formulon's start (the preview engine's load ends with this, so no preview
        waits for it)."""
        if self._loading is not None:
            self._loading.join()
            self._loading = None

    @property
    def engine(self) -> str:
        """Which engine evaluates array candidates: "formulon", or "formualizer" without it."""
        self.wait()
        return "formulon" if self._ready else "formualizer"

    def settle(self, engine) -> bool:
        """Once the preview engine has evaluated the workbook: each array formula cell whose
        value is not an error and not the one the file cached is set to the cached value (the
        engine's is wrong where array semantics matter; an error is left to the previews'
        cached-value fallback), and, up to `SETTLE_FORMULAS`, the formulas reading tables are
        set again as the A1 ranges they read. True when anything changed: the engine must
        then evaluate again. (After the first evaluation formualizer takes edits ~30x faster;
        each still costs ~0.3 ms on a 24,000-formula workbook, hence the bound.)"""
        changed = False
        for sheet, row, col, cell in self.cached:
            now = engine.get_value(sheet, row, col)
            if not (isinstance(now, dict) or _same(now, cell)):
                engine.set_value(sheet, row, col, cached_value(cell))
                changed = True
        for sheet, row, col, formula in self.resolved:
            engine.sheet(sheet).set_formula(row, col, formula)
            changed = True
        return changed

    def holds(self, sheet: str, row: int, col: int, formula: str) -> bool:
        """Whether `formula` at the cell is an array formula of the workbook (module doc)."""
        if not self.r1c1s:
            return False
        try:
            return parse_formula(formula, sheet, (row - 1, col - 1)).r1c1 in self.r1c1s
        except FortapError:
            return False

    def add(self, sheet: str, row: int, col: int, formula: str) -> None:
        """`formula`, written at the cell as an array formula, makes its copies array formulas."""
        try:
            r1c1 = parse_formula(formula, sheet, (row - 1, col - 1), True).r1c1
        except FortapError:
            return
        self.r1c1s = self.r1c1s | {r1c1}

    def resolve(self, formula: str, sheet: str, row: int, col: int) -> str:
        """`formula` with its structured references as the A1 ranges they read at the cell."""
        return resolve_structured(formula, self.tables, sheet, row - 1, col - 1)

    def evaluate(self, sheet, row, col, formula, boxes, grids, dates: bool) -> Preview | None:
        """Array formula `formula` evaluated by formulon at the cell over the values `grids`
        of `boxes` (the cells route's, `Previewer._cells_preview`); None when they hold more
        than `MAX_ARRAY_CELLS` values."""
        index = {name: i for i, name in enumerate(self.sheet_names)}
        wanted = {}
        for (name, r1, c1, _, _), grid in zip(boxes, grids, strict=True):
            for i, line in enumerate(grid):
                for j, value in enumerate(line):
                    if value is not None:
                        wanted[(index[name], r1 + i - 1, c1 + j - 1)] = value
        if len(wanted) > MAX_ARRAY_CELLS:
            return None
        try:
            wb = self._scratch_with(wanted)
            raw = wb.evaluate_formula_array(index[sheet], row - 1, col - 1, formula)[0][0]
            return to_preview(_raw(raw), "formulon", dates)
        except BaseException as err:
            self._scratch = None  # start the next one afresh
            return failed(err, "formulon")

    def _scratch_with(self, wanted: dict):
        """A formulon workbook holding exactly `wanted` ((sheet, row, col) 0-based -> value);
        the last one again when it held the same (the shortlist's candidates often read the
        same cells)."""
        if self._scratch is not None and self._written == wanted:
            return self._scratch
        import formulon

        if self._scratch is not None:
            self._scratch.close()
        self._scratch = None
        wb = formulon.Workbook.create_empty()
        for name in self.sheet_names:
            wb.add_sheet(name)
        for sheet, row, col, values in _runs(wanted):
            if len(values) == 1:
                _set(wb, sheet, row, col, values[0])
            else:  # one spilled array constant per run: a write costs ~0.05 ms, a value ~0.02
                wb.set_formula(sheet, row, col, "={" + ";".join(map(_constant, values)) + "}")
        wb.recalc()
        self._scratch, self._written = wb, wanted
        return wb


def _runs(wanted: dict):
    """(sheet, first row, col, values) of each run of consecutive rows of one column in
    `wanted`, at most `RUN_CHARS` characters of constants each."""
    places = sorted(wanted, key=lambda p: (p[0], p[2], p[1]))
    run: list = []
    size = 0
    for place in places:
        text = len(_constant(wanted[place]))
        last = run[-1] if run else None
        below = last is not None and (last[0], last[2], last[1] + 1) == (
            place[0],
            place[2],
            place[1],
        )
        if below and size + text < RUN_CHARS:
            run.append(place)
            size += text + 1
            continue
        if run:
            yield run[0][0], run[0][1], run[0][2], [wanted[p] for p in run]
        run, size = [place], text
    if run:
        yield run[0][0], run[0][1], run[0][2], [wanted[p] for p in run]


def _constant(value) -> str:
    """`value` as an element of an array constant (`{1;"a";TRUE;#N/A}`)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(float(value))
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    if isinstance(value, dt.timedelta):
        return repr(value.total_seconds() / 86400.0)
    if isinstance(value, dt.date | dt.time):
        return repr(to_serial(value))
    text = ERROR_TEXT.get(str(value.get("kind")), "#VALUE!") if isinstance(value, dict) else ""
    return text if text in CONSTANT_ERRORS else "#VALUE!"


def _resolved(book: Workbook, tables: TableIndex) -> list[tuple[str, int, int, str]]:
    """(sheet, row, col 1-based, A1 text) of the workbook's formulas that read tables through
    structured references, resolved at their cells, for the preview engine to take (none when
    there are more than `SETTLE_FORMULAS`: `ArrayPreviews.settle`)."""
    if not tables:
        return []
    found = [
        (sheet.name, r, c, cell.formula)
        for sheet in book.sheets
        for (r, c), cell in sheet.cells.items()
        if cell.formula and "[" in cell.formula
    ]
    if len(found) > SETTLE_FORMULAS:
        return []
    out = []
    for name, r, c, formula in found:
        text = resolve_structured(formula, tables, name, r, c)
        if text != formula:
            out.append((name, r + 1, c + 1, text))
    return out


def _cached_arrays(book: Workbook) -> list[tuple[str, int, int, Cell]]:
    """(sheet, row, col 1-based, cell) of every cell an array formula fills whose formula
    cached a value in the file."""
    out = []
    for sheet in book.sheets:
        for region in sheet.arrays:
            if sheet.cell(region.top, region.left).kind == "empty":
                continue
            for r in range(region.top, region.bottom + 1):
                for c in range(region.left, region.right + 1):
                    out.append((sheet.name, r + 1, c + 1, sheet.cell(r, c)))
    return out


def _same(now, cell: Cell) -> bool:
    """Whether the engine's value `now` is the one `cell` cached (dates are not compared)."""
    if cell.kind == "number":
        number = isinstance(now, int | float) and not isinstance(now, bool)
        return number and abs(now - cell.value) <= 1e-9 * max(1.0, abs(cell.value))
    if cell.kind == "error":
        return isinstance(now, dict) and ERROR_TEXT.get(str(now.get("kind"))) == cell.value
    if cell.kind in ("text", "bool"):
        return now == cell.value and type(now) is type(cell.value)
    return cell.kind == "date" or now in (None, "")


def _array_r1c1s(book: Workbook):
    for sheet in book.sheets:
        for (r, c), cell in sheet.cells.items():
            if cell.array_formula and cell.formula:
                try:
                    yield parse_formula(cell.formula, sheet.name, (r, c), True).r1c1
                except FortapError:
                    continue


def _raw(value):
    """A formulon `Value` -> formualizer's Python form of the same value."""
    kind = value.kind.name
    if kind == "NUMBER":
        return value.number
    if kind == "TEXT":
        return value.text
    if kind == "BOOL":
        return value.boolean
    if kind == "BLANK":
        return None
    if kind == "ERROR":
        import formulon

        text = formulon.error_display_name(value.error_code)
        return {"type": "Error", "kind": ERROR_KIND.get(text, text.strip("#!?/").title())}
    return {"type": "Error", "kind": "Value"}  # a reference or lambda left as the result


def _set(wb, sheet: int, row: int, col: int, value) -> None:
    """One value of the preview engine's grid into formulon's scratch cell (0-based)."""
    if value is None:
        return
    if isinstance(value, bool):
        wb.set_bool(sheet, row, col, value)
    elif isinstance(value, int | float):
        wb.set_number(sheet, row, col, float(value))
    elif isinstance(value, str):
        wb.set_text(sheet, row, col, value)
    elif isinstance(value, dt.timedelta):
        wb.set_number(sheet, row, col, value.total_seconds() / 86400.0)
    elif isinstance(value, dt.date | dt.time):
        wb.set_number(sheet, row, col, to_serial(value))
    elif isinstance(value, dict):  # an error
        text = ERROR_TEXT.get(str(value.get("kind")), "#VALUE!")
        wb.set_error(sheet, row, col, ERROR_CODES.get(text, ERROR_CODES["#VALUE!"]))
