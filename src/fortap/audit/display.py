"""Numbers as a cell shows them: equal at the precision its number format displays.

A typed total that matches a formula's value only to the cents the sheet shows is still that
formula's value, so comparisons round both to the decimals of the cell's format (`0.00` -> 2,
`0%` -> 2 more, `#,##0` -> 0); `General` shows up to ten significant digits.
"""

from __future__ import annotations

import math
import re

GENERAL_DIGITS = 10  # significant digits a General cell shows (Excel's column width aside)

_QUOTED = re.compile(r'"[^"]*"|\\.|\[[^\]]*\]')  # literal text, escapes, colours and conditions


def decimals(number_format: str | None) -> int | None:
    """Decimals the format shows (None: General or unknown, i.e. significant digits)."""
    if not number_format or number_format.strip().casefold() == "general":
        return None
    first = _QUOTED.sub("", number_format.split(";")[0])
    if not re.search(r"[0#?]", first):
        return None
    shown = 0
    if "." in first:
        shown = len(re.match(r"[0#?]*", first.split(".", 1)[1]).group(0))
    if "%" in first:
        shown += 2
    if re.search(r"[eE][+-]", first):
        return None  # scientific: significant digits
    return shown


def same_shown(a: float, b: float, number_format: str | None) -> bool:
    """Whether `a` and `b` look the same in a cell formatted with `number_format`."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    places = decimals(number_format)
    if places is None:
        return math.isclose(a, b, rel_tol=10.0**-GENERAL_DIGITS, abs_tol=1e-12)
    step = 10.0**-places
    return abs(round(a / step) - round(b / step)) == 0 or math.isclose(a, b, rel_tol=1e-12)
