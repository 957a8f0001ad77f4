"""The edits of a formula's text that inject a fault beyond a shifted reference (`audit.faults`).

Each takes the formula as the workbook wrote it and returns the faulty text, or None when the
formula cannot take that fault; it edits one place of the text and keeps the rest as written:
- `constant_for`: one same-sheet cell reference replaced by the number that cell holds
  (`=B7*C7` -> `=B7*0.08`: the value of today, typed over its reference);
- `swapped`: one `SUM` made `AVERAGE` or back, or one `MAX` made `MIN` or back;
- `anchored`: one relative cell reference made absolute along its block (`=B7` -> `=B$7` down
  a column, `$B7` along a row): the same value where it stands, wrong once filled on.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.printer import number_text
from fortap.formula.references import ref_a1
from fortap.suggest.api import SheetContext, refs_of

SWAPS = {"SUM": "AVERAGE", "AVERAGE": "SUM", "MAX": "MIN", "MIN": "MAX"}
_SWAPPABLE = re.compile(r"(?<![A-Za-z0-9_.])(SUM|AVERAGE|MAX|MIN)\(", re.I)


def mentions(ref_text: str) -> re.Pattern:
    """`ref_text` as a whole reference: not part of a name, a longer address, a range or a
    sheet-qualified reference (`B7` in `=B7*2`, not in `AB7`, `B70`, `B7:B9` or `S!B7`)."""
    return re.compile(rf"(?<![A-Za-z0-9_.$!:']){re.escape(ref_text)}(?![A-Za-z0-9_(:!])")


def _cell_refs(ast, sheet: str):
    return [r for r in refs_of(ast) if r.kind == "cell" and r.sheet in (None, sheet)]


def _replace_once(text: str, old: str, new: str) -> str | None:
    """`text` with the one whole mention of the reference `old` made `new` (None: not once)."""
    found = list(mentions(old).finditer(text))
    if len(found) != 1:
        return None
    return text[: found[0].start()] + new + text[found[0].end() :]


def constant_for(text: str, ast, sc: SheetContext, sheet: str, cell: tuple[int, int],
                 rng) -> str | None:  # fmt: skip
    """`text` with one of its same-sheet cell references that read a number made that number."""
    refs = _cell_refs(ast, sheet)
    for i in rng.permutation(len(refs)):
        ref = refs[i]
        read = sc.sheet.cell(ref.start.row, ref.start.col)
        value = read.value
        if read.kind != "number" or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if not math.isfinite(value):
            continue
        number = number_text(float(value))
        after = _replace_once(text, ref_a1(ref, keep_sheet=False),
                              f"({number})" if value < 0 else number)  # fmt: skip
        if after is not None and _parses(after, sheet, cell):
            return after
    return None


def swappable(text: str) -> bool:
    """Whether the formula calls a function `swapped` can swap."""
    return _SWAPPABLE.search(text) is not None


def swapped(text: str, sheet: str, cell: tuple[int, int], rng) -> str | None:
    """`text` with one `SUM`/`AVERAGE`/`MAX`/`MIN` call made its partner (`SWAPS`)."""
    found = list(_SWAPPABLE.finditer(text))
    for i in rng.permutation(len(found)):
        m = found[i]
        after = text[: m.start(1)] + SWAPS[m.group(1).upper()] + text[m.end(1) :]
        if _parses(after, sheet, cell):
            return after
    return None


def anchored(text: str, ast, sheet: str, cell: tuple[int, int], axis: int, rng) -> str | None:
    """`text` with one relative cell reference made absolute along `axis` (0: its row, for a
    block down a column; 1: its column, for a block along a row)."""
    refs = [r for r in _cell_refs(ast, sheet)
            if not (r.start.abs_row if axis == 0 else r.start.abs_col)]  # fmt: skip
    for i in rng.permutation(len(refs)):
        ref = refs[i]
        which = {"abs_row": True} if axis == 0 else {"abs_col": True}
        fixed = replace(ref, start=replace(ref.start, **which))
        after = _replace_once(text, ref_a1(ref, keep_sheet=False), ref_a1(fixed, keep_sheet=False))
        if after is not None and _parses(after, sheet, cell):
            return after
    return None


def _parses(text: str, sheet: str, cell: tuple[int, int]) -> bool:
    """Whether the edited text still parses as a formula at its cell."""
    try:
        parse_formula(text, sheet, cell)
    except FortapError:
        return False
    return True
