"""Loading a workbook into formualizer, the Excel error texts of its error kinds, and what a
preview needs around the engine: date formats and serials, external links, panic text kept off
the terminal.

`load_engine` uses formualizer's own .xlsx loader (names, tables and every formula as the file
holds them); for .csv, or when that loader fails or misses a sheet, `engine_from_cells` builds
the workbook from the values and formulas fortap's reader found.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

import formualizer as fz

from fortap.formula.references import quote_sheet
from fortap.sheet.model import Workbook, a1

ERROR_TEXT = {
    "Div": "#DIV/0!",
    "Ref": "#REF!",
    "Name": "#NAME?",
    "Value": "#VALUE!",
    "Num": "#NUM!",
    "Null": "#NULL!",
    "Na": "#N/A",
    "Spill": "#SPILL!",
    "Calc": "#CALC!",
    "Circ": "#CIRC!",
    "Error": "#ERROR!",
    "NImpl": "#N/IMPL!",
    "Cancelled": "#CANCELLED!",
}
ERROR_KIND = {text: kind for kind, text in ERROR_TEXT.items()}


def reraise_interrupt(err: BaseException) -> None:
    """formualizer's Rust panics reach Python as pyo3's PanicException, a BaseException, so
    previews catch BaseException; interrupts and exits still go through."""
    if isinstance(err, KeyboardInterrupt | SystemExit | GeneratorExit):
        raise err


def load_engine(book: Workbook) -> fz.Workbook:
    """formualizer's own load of the .xlsx/.xlsm (for an .xls/.ods, the reader's converted
    .xlsx); a workbook built from fortap's cells for .csv or when that load fails."""
    if Path(book.path).suffix.lower() in (".xlsx", ".xlsm"):
        try:
            engine = fz.load_workbook(book.path)
            if set(engine.sheet_names) >= {s.name for s in book.sheets}:
                return engine
        except BaseException as err:
            reraise_interrupt(err)
    return engine_from_cells(book)


def engine_from_cells(book: Workbook) -> fz.Workbook:
    """A formualizer workbook holding `book`'s values and formulas (for .csv and loader failures)."""
    engine = fz.Workbook()
    for sheet in book.sheets:
        engine.add_sheet(sheet.name)
        for (r, c), cell in sheet.cells.items():
            try:
                if cell.formula:
                    engine.set_formula(sheet.name, r + 1, c + 1, cell.formula)
                elif cell.value is not None:
                    engine.set_value(sheet.name, r + 1, c + 1, cached_value(cell))
            except BaseException as err:  # a formula it does not parse: keep the cached value
                reraise_interrupt(err)
                engine.set_value(sheet.name, r + 1, c + 1, cached_value(cell))
    return engine


def cached_value(cell):
    """A cell's cached value as formualizer takes it (errors as error literals, dates as datetimes)."""
    if cell.kind == "error" and isinstance(cell.value, str) and cell.value in ERROR_KIND:
        return fz.LiteralValue.error(ERROR_KIND[cell.value], None)
    if cell.kind == "date" and isinstance(cell.value, str):
        try:
            return dt.datetime.fromisoformat(cell.value)
        except ValueError:
            return cell.value
    return cell.value


def settable(value):
    """A value read from the engine, in a form `set_value` takes back (errors included)."""
    if isinstance(value, dict) and value.get("type") == "Error":
        return fz.LiteralValue.error(str(value.get("kind")), None)
    return value


def defined_names(engine: fz.Workbook) -> dict[tuple[str | None, str], str]:
    """(scope sheet or None, name), both casefolded -> the absolute A1 text of every name that
    stands for a cell or a range (names holding constants or formulas are left out)."""
    out: dict[tuple[str | None, str], str] = {}
    try:
        entries = list(engine.get_named_ranges())
        for sheet in engine.sheet_names:
            entries += engine.get_named_ranges(sheet)
    except BaseException as err:
        reraise_interrupt(err)
        return out
    for e in entries:
        if e.get("kind") not in ("cell", "range") or not e.get("sheet"):
            continue
        start = a1(e["start_row"] - 1, e["start_col"] - 1, absolute=True)
        end = a1(e["end_row"] - 1, e["end_col"] - 1, absolute=True)
        text = quote_sheet(e["sheet"]) + "!" + (start if start == end else f"{start}:{end}")
        scope = e.get("scope_sheet") if e.get("scope") == "sheet" else None
        out[(scope.casefold() if scope else None, str(e["name"]).casefold())] = text
    return out


def resolve_names(formula: str, host: str, names: dict[tuple[str | None, str], str]) -> str:
    """`formula` with each defined name replaced by the cells it stands for (the host sheet's
    own names first, then the workbook's); unknown names and everything else are kept."""
    if not names:
        return formula
    parts, pos = [], 0
    for token in fz.tokenize(formula).tokens():
        if str(token.token_type) != "Operand" or str(token.subtype) != "Range":
            continue
        name = token.value.casefold()
        text = names.get((host.casefold(), name)) or names.get((None, name))
        if text is not None:
            parts += [formula[pos : token.start], text]
            pos = token.end
    return "".join(parts) + formula[pos:]


def known_names(engine: fz.Workbook) -> frozenset[str]:
    """Casefolded names of every defined name (any kind, any scope) and table of `engine`."""
    try:
        entries = list(engine.get_named_ranges())
        for sheet in engine.sheet_names:
            entries += engine.get_named_ranges(sheet)
        entries += engine.tables()
    except BaseException as err:
        reraise_interrupt(err)
        return frozenset()
    return frozenset(str(e["name"]).casefold() for e in entries if e.get("name"))


EPOCH = dt.datetime(1899, 12, 30)  # Excel's day 0 (serials from 61 on, 1900-03-01)
_EXTERNAL = re.compile(r"\[[^\]]+\][^\[\]!]*!")  # [1]Sheet1!A1, '[book.xlsx]Sheet'!A1
_FORMAT_NOISE = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]|_.|\*.')  # text, escapes, [Red], pads


def is_date_format(number_format: str | None) -> bool:
    """Whether an Excel number format shows a date or time (d, m, y, h or s outside quoted
    text, escapes and [colour]/[locale] sections; "General" and number formats do not)."""
    if not number_format or number_format.strip().casefold() == "general":
        return False
    return bool(re.search(r"[dmyhs]", _FORMAT_NOISE.sub("", number_format).casefold()))


def to_serial(value: dt.date | dt.datetime | dt.time) -> float:
    """A date, datetime or time as Excel's serial number."""
    if isinstance(value, dt.datetime):
        return (value - EPOCH).total_seconds() / 86400.0
    if isinstance(value, dt.date):
        return float((value - EPOCH.date()).days)
    return (value.hour * 3600 + value.minute * 60 + value.second) / 86400.0


def from_serial(serial: float) -> str:
    """Excel's serial number as ISO text: a date, or a datetime when it has a time of day."""
    when = EPOCH + dt.timedelta(days=serial)
    return when.date().isoformat() if float(serial).is_integer() else when.isoformat()


def external_link(formula: str) -> bool:
    """Whether `formula` reads another workbook (`[1]Sheet1!A1`, `'[book.xlsx]Sheet'!A1`)."""
    return bool(_EXTERNAL.search(formula))


_QUIET = threading.RLock()
_depth = 0


@contextmanager
def native_stderr_silenced():
    """Send file descriptor 2 to /dev/null for the block (a command's whole run): formualizer
    prints a Rust panic's message there (the preview shows #ERROR! instead); Python's own
    errors are raised and printed after the block, so nothing a user must read is lost."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@contextmanager
def quiet_panics():
    """Run formualizer calls with file descriptor 2 captured: a Rust panic's hook writes its
    text there, outside Python; when the capture holds "panicked at" it is dropped whole, else
    passed on to the real stderr. Re-entrant; one capture at a time in the process (fd 2 is
    the process's)."""
    global _depth
    with _QUIET:
        if _depth:
            _depth += 1
            try:
                yield
            finally:
                _depth -= 1
            return
        sys.stderr.flush()
        saved = os.dup(2)
        with tempfile.TemporaryFile() as tmp:
            os.dup2(tmp.fileno(), 2)
            _depth = 1
            try:
                yield
            finally:
                _depth = 0
                os.dup2(saved, 2)
                os.close(saved)
                tmp.seek(0)
                text = tmp.read()
                if text and b"panicked at" not in text:
                    os.write(2, text)
