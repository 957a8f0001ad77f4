"""What a value preview shows (`Preview`) and how an engine's answer is read as one.

A preview is evidence, not a verdict. An Excel error is the candidate's own (`own_error`, the
only kind that demotes a suggestion) when the candidate introduces it: a `#DIV/0!` from an
empty or zero divisor, a `#REF!`, a name nothing defines, a formula reading its own cell. It is
not when the cells it reads already hold errors (`note` says so), nor when the engine cannot
compute (`ENGINE_FAILURES`: a circular chain, a function it does not implement, an engine
failure): those, and what it cannot read at all (a function it does not know, another
workbook), show no value and a note "not computed: <reason>". On the engine route the inputs
are not read, so only `#DIV/0!` and `#REF!` count as the candidate's own there
(`judged_engine`). An error the formula's text already holds (`=#REF!*2`: a reference the
workbook itself broke, copied with the formula) is the workbook's, not the candidate's
(`as_written`). A number shows as a date (ISO text) exactly when the target cell's number
format is a date format (`to_preview`'s `dates`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass

from fortap.suggest.calc_book import ERROR_TEXT, from_serial, reraise_interrupt, to_serial

NOT_COMPUTED = "not computed"
# Errors that say the engine could not compute, not that the formula is wrong.
ENGINE_FAILURES = {
    "#CIRC!": "a circular chain",
    "#N/IMPL!": "a function the preview engine does not implement",
    "#ERROR!": "the preview engine failed on it",
    "#CANCELLED!": "the preview engine stopped",
}
OWN_ON_ENGINE = frozenset({"#DIV/0!", "#REF!"})  # the candidate's own, inputs unread


@dataclass(frozen=True)
class Preview:
    """A candidate's value in the target cell, or the Excel error it gives (`route`: cells|engine).

    `note`: why it shows what it shows ("not computed: <reason>", inputs holding errors, values
    from the file's cache); `own_error`: the error is the candidate's own (it demotes it)."""

    value: str | float | bool | None
    error: str | None
    route: str
    note: str | None = None
    own_error: bool = False
    array: bool = False  # an array formula, evaluated with array semantics (`preview_array`)

    @property
    def computed(self) -> bool:
        return not (self.note or "").startswith(NOT_COMPUTED)


def to_preview(raw, route: str, dates: bool = False) -> Preview:
    """formualizer's Python value -> `Preview` (arrays show their top-left value, as the cell);
    numbers, dates and times show as ISO dates when `dates` (the cell's format is a date
    format), else as numbers (Excel serials)."""
    while isinstance(raw, list):
        raw = raw[0][0] if raw and isinstance(raw[0], list) and raw[0] else None
    if isinstance(raw, dict) and raw.get("type") == "Error":
        kind = str(raw.get("kind"))
        return Preview(None, ERROR_TEXT.get(kind, f"#{kind.upper()}!"), route)
    if isinstance(raw, bool | str) or raw is None:
        return Preview(raw, None, route)
    if isinstance(raw, dt.timedelta):
        raw = raw.total_seconds() / 86400.0
    if isinstance(raw, dt.date | dt.time):
        return Preview(raw.isoformat() if dates else to_serial(raw), None, route)
    if isinstance(raw, int | float):
        return Preview(_dated(float(raw)) if dates else float(raw), None, route)
    return Preview(str(raw), None, route)


def _dated(serial: float) -> str | float:
    try:
        return from_serial(serial)
    except (OverflowError, ValueError):  # beyond the calendar: the number itself
        return serial


def failed(err: BaseException, route: str) -> Preview:
    """A formula formualizer refuses: a self-reference is `#CIRC!`, anything else `#ERROR!`."""
    reraise_interrupt(err)
    return Preview(None, "#CIRC!" if "#CIRC!" in str(err) else "#ERROR!", route)


def not_computed(route: str, reason: str) -> Preview:
    return Preview(None, None, route, f"{NOT_COMPUTED}: {reason}")


def judged_engine(shown: Preview) -> Preview:
    """An engine-route preview judged without its inputs (module doc)."""
    if shown.error is None:
        return shown
    if shown.error in ENGINE_FAILURES:
        return not_computed("engine", ENGINE_FAILURES[shown.error])
    return dataclasses.replace(shown, own_error=shown.error in OWN_ON_ENGINE)


def as_written(shown: Preview, formula: str) -> Preview:
    """`shown` no longer the candidate's own error when the formula's text holds that error
    (a broken reference copied from the workbook's formulas)."""
    if not shown.own_error or shown.error is None or shown.error not in formula.upper():
        return shown
    note = f"the formula holds {shown.error} as the workbook's formulas do"
    return dataclasses.replace(shown, own_error=False, note=note)
