"""References: A1 text <-> 0-based (row, col), the `$`-aware R1C1 form, and sheet/table coordinates.

A reference text is split into an optional sheet qualifier (`Sheet1!`, `'My sheet'!`) and the
address part: a cell `$B$2`, an area `A1:C3`, whole columns `A:C` or whole rows `2:5`. Anything
else is a defined name, a structured table reference (`T[Col]`), an external-workbook reference
(`[1]Sheet!A1`) or a 3-D reference (`Jan:Dec!A1`); those keep their text and have no cells.
Whole columns and rows resolve to their first and last cell (`A:A` is A1:A1048576).
"""

from __future__ import annotations

import re
from dataclasses import replace

from fortap.formula.nodes import Address, Node, Ref, walk
from fortap.sheet.model import column_letter

MAX_ROWS = 1_048_576
MAX_COLS = 16_384

_CELL = re.compile(r"(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})")
_COLS = re.compile(r"(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})")
_ROWS = re.compile(r"(\$?)([0-9]{1,7}):(\$?)([0-9]{1,7})")
_SIMPLE_SHEET = re.compile(r"[A-Za-z_\u00c0-\uffff][A-Za-z0-9_.\u00c0-\uffff]*")
_R1C1_LIKE = re.compile(r"[Rr][0-9]*[Cc][0-9]*|[Rr][0-9]*|[Cc][0-9]*")
_A1_LIKE = re.compile(r"[A-Za-z]{1,3}[0-9]+")

_COL_CACHE: dict[str, int] = {}


def column_index(letters: str) -> int | None:
    """Excel column letters -> 0-based index (A -> 0, AA -> 26); None beyond XFD."""
    idx = _COL_CACHE.get(letters)
    if idx is None:
        n = 0
        for ch in letters.upper():
            n = n * 26 + ord(ch) - 64
        idx = n - 1
        _COL_CACHE[letters] = idx
    return idx if idx < MAX_COLS else None


def _cell_address(m: re.Match) -> Address | None:
    col = column_index(m[2])
    row = int(m[4]) - 1
    if col is None or not 0 <= row < MAX_ROWS:
        return None
    return Address(row, col, m[3] == "$", m[1] == "$")


def parse_address(text: str) -> tuple[Address, Address | None] | None:
    """The address part of a reference -> (start, end or None); None when it is not an address."""
    m = _CELL.fullmatch(text)
    if m:
        a = _cell_address(m)
        return None if a is None else (a, None)
    start, colon, stop = text.partition(":")
    if colon:
        m1, m2 = _CELL.fullmatch(start), _CELL.fullmatch(stop)
        if m1 and m2:
            a, b = _cell_address(m1), _cell_address(m2)
            return None if a is None or b is None else (a, b)
    m = _COLS.fullmatch(text)
    if m:
        c1, c2 = column_index(m[2]), column_index(m[4])
        if c1 is None or c2 is None:
            return None
        return Address(None, c1, False, m[1] == "$"), Address(None, c2, False, m[3] == "$")
    m = _ROWS.fullmatch(text)
    if m:
        r1, r2 = int(m[2]) - 1, int(m[4]) - 1
        if not (0 <= r1 < MAX_ROWS and 0 <= r2 < MAX_ROWS):
            return None
        return Address(r1, None, m[1] == "$", False), Address(r2, None, m[3] == "$", False)
    return None


def split_sheet(text: str) -> tuple[str | None, str, bool]:
    """`'It''s'!A1` -> ("It's", "A1", quoted=True); no qualifier -> (None, text, False)."""
    if "!" not in text:
        return None, text, False
    if text.startswith("'"):
        i = 1
        while i < len(text):
            if text[i] == "'":
                if i + 1 < len(text) and text[i + 1] == "'":
                    i += 2
                    continue
                break
            i += 1
        if text[i + 1 : i + 2] == "!":
            return text[1:i].replace("''", "'"), text[i + 2 :], True
    sheet, _, rest = text.rpartition("!")
    return sheet, rest, False


_REFS: dict[str, Ref] = {}


def parse_reference(text: str) -> Ref:
    """Reference text as formualizer returns it -> `Ref` (never fails: unknown text is a name).

    Memoised: `Ref` is immutable and the same reference text recurs all over a workbook.
    """
    ref = _REFS.get(text)
    if ref is None:
        if len(_REFS) > 500_000:
            _REFS.clear()
        ref = _REFS[text] = _parse_reference(text)
    return ref


def _parse_reference(text: str) -> Ref:
    sheet, rest, _ = split_sheet(text)
    if sheet is not None:
        if "[" in sheet or sheet == "":
            return Ref("external", name=text)
        if ":" in sheet:
            return Ref("3d", name=text)
    elif "[" in rest:
        return Ref("table", name=text)
    addr = parse_address(rest)
    if addr is None:
        return Ref("name", sheet, name=rest)
    start, end = addr
    return Ref("cell" if end is None else "area", sheet, start, end)


def quote_sheet(sheet: str) -> str:
    """Sheet qualifier text, quoted only when Excel needs it."""
    if (
        _SIMPLE_SHEET.fullmatch(sheet)
        and not _A1_LIKE.fullmatch(sheet)
        and not _R1C1_LIKE.fullmatch(sheet)
        and sheet.upper() not in ("TRUE", "FALSE")
    ):
        return sheet
    return "'" + sheet.replace("'", "''") + "'"


def address_a1(a: Address, keep_dollar: bool = True) -> str:
    """`Address` -> `$B$2`, `B2` (keep_dollar False), `$B` (whole column) or `2` (whole row)."""
    col = "" if a.col is None else ("$" if a.abs_col and keep_dollar else "") + column_letter(a.col)
    row = "" if a.row is None else ("$" if a.abs_row and keep_dollar else "") + str(a.row + 1)
    return col + row


def ref_a1(ref: Ref, keep_dollar: bool = True, keep_sheet: bool = True) -> str:
    """`Ref` -> its A1 text (sheet-qualified when it was)."""
    if ref.start is None:
        assert ref.name is not None
        if ref.kind == "name" and ref.sheet is not None and keep_sheet:
            return quote_sheet(ref.sheet) + "!" + ref.name
        return ref.name
    text = address_a1(ref.start, keep_dollar)
    if ref.end is not None:
        text += ":" + address_a1(ref.end, keep_dollar)
    if ref.sheet is not None and keep_sheet:
        text = quote_sheet(ref.sheet) + "!" + text
    return text


def _r1c1_part(letter: str, value: int | None, absolute: bool, base: int) -> str:
    if value is None:
        return ""
    if absolute:
        return f"{letter}{value + 1}"
    delta = value - base
    return letter if delta == 0 else f"{letter}[{delta}]"


def address_r1c1(a: Address, cell: tuple[int, int]) -> str:
    """`$`-aware R1C1 text of one address seen from `cell`: `$S$2` -> `R2C19`, `B7` from D7 -> `RC[-2]`."""
    return _r1c1_part("R", a.row, a.abs_row, cell[0]) + _r1c1_part("C", a.col, a.abs_col, cell[1])


def ref_r1c1(ref: Ref, cell: tuple[int, int]) -> str:
    """`Ref` -> `$`-aware R1C1 text relative to the formula cell (names keep their text)."""
    if ref.start is None:
        return ref_a1(ref)
    text = address_r1c1(ref.start, cell)
    if ref.end is not None:
        text += ":" + address_r1c1(ref.end, cell)
    if ref.sheet is not None:
        text = quote_sheet(ref.sheet) + "!" + text
    return text


def ref_cells(ref: Ref) -> tuple[tuple[int, int], ...]:
    """The 0-based (row, col) endpoints of a reference: one for a cell, two for an area
    (whole columns/rows resolve to their first and last cell); () when it has no cells."""
    if ref.start is None:
        return ()
    s = ref.start
    if ref.end is None:
        assert s.row is not None and s.col is not None
        return ((s.row, s.col),)
    e = ref.end
    return (
        (0 if s.row is None else s.row, 0 if s.col is None else s.col),
        (MAX_ROWS - 1 if e.row is None else e.row, MAX_COLS - 1 if e.col is None else e.col),
    )


def ref_box(ref: Ref) -> tuple[int, int, int, int] | None:
    """(top, left, bottom, right) rectangle covered by a reference; None when it has no cells."""
    cells = ref_cells(ref)
    if not cells:
        return None
    (r1, c1), (r2, c2) = cells[0], cells[-1]
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def refers_to(ast: Node, cell: tuple[int, int], sheet: str | None = None) -> bool:
    """True when a reference of `ast` to its own sheet (no qualifier, or `sheet`) covers `cell`:
    the formula, entered in `cell`, would be a circular reference."""
    for ref in walk(ast):
        if isinstance(ref, Ref) and ref.sheet in (None, sheet):
            box = ref_box(ref)
            if box is not None and box[0] <= cell[0] <= box[2] and box[1] <= cell[1] <= box[3]:
                return True
    return False


def on_row_or_column(box: tuple[int, int, int, int], cell: tuple[int, int]) -> bool:
    """True when the whole rectangle lies on the formula cell's row or on its column."""
    top, left, bottom, right = box
    return (top == bottom == cell[0]) or (left == right == cell[1])


def to_table(cell: tuple[int, int], top: int, left: int, n_rows: int, n_cols: int):
    """Sheet (row, col) -> table-relative (row, col) for a table at (top, left); None outside."""
    r, c = cell[0] - top, cell[1] - left
    return (r, c) if 0 <= r < n_rows and 0 <= c < n_cols else None


class OffSheet(ValueError):
    """A moved reference would leave the sheet (Excel writes `#REF!` there)."""


# `[1]Sheet!A1:B2` / `[1]'My Sheet'!$A$1`: the workbook and sheet, then the cells
_EXTERNAL = re.compile(r"(\[[^\]]+\](?:'(?:[^']|'')*'|[^!'\[\]]+)!)([$A-Za-z0-9:]+)")


def shift_ref(ref: Ref, dr: int, dc: int) -> Ref:
    """`ref` copied (dr, dc) cells away, as Excel's fill and paste do: relative row/column parts
    move, `$` parts stay; `OffSheet` when a moved part passes an edge of the sheet. A reference
    into another workbook (`[1]LEM!X269`, a name to the parser) moves the same way."""
    if dr == 0 and dc == 0:
        return ref
    if ref.start is None:
        return _shift_external(ref, dr, dc) if ref.kind == "external" else ref

    def move(a: Address | None) -> Address | None:
        if a is None:
            return None
        row = a.row if a.row is None or a.abs_row else a.row + dr
        col = a.col if a.col is None or a.abs_col else a.col + dc
        if (row is not None and not 0 <= row < MAX_ROWS) or (
            col is not None and not 0 <= col < MAX_COLS
        ):
            raise OffSheet("reference leaves the sheet")
        return replace(a, row=row, col=col)

    return replace(ref, start=move(ref.start), end=move(ref.end))


def _shift_external(ref: Ref, dr: int, dc: int) -> Ref:
    """An external reference with its cells moved (unchanged when its text is not understood)."""
    m = _EXTERNAL.fullmatch(ref.name or "")
    parsed = parse_address(m[2]) if m else None
    if m is None or parsed is None:
        return ref
    moved = shift_ref(Ref("area", None, parsed[0], parsed[1]), dr, dc)
    cells = address_a1(moved.start) + ("" if moved.end is None else ":" + address_a1(moved.end))
    return replace(ref, name=m[1] + cells)


def insert_shift(ref: Ref, at: int, count: int = 1, axis: str = "row") -> Ref:
    """`ref` after `count` empty rows (`axis` "row") or columns ("col") are inserted before
    0-based sheet row or column `at`, as the spreadsheet's Insert does: every part at or after
    `at` moves by `count`, `$` or not, so an area that spans `at` grows and one before it stays;
    `OffSheet` when a part is pushed past the sheet's edge. A reference without cells keeps its
    text (the caller decides whether it lives on the sheet that got the insertion)."""
    if axis not in ("row", "col"):
        raise ValueError(f"insert_shift: axis must be 'row' or 'col', got {axis!r}")
    if count < 0:
        raise ValueError(f"insert_shift: count must be >= 0, got {count}")
    if ref.start is None or count == 0:
        return ref

    def move(a: Address | None) -> Address | None:
        if a is None:
            return None
        if axis == "row":
            if a.row is None or a.row < at:
                return a
            if a.row + count >= MAX_ROWS:
                raise OffSheet("reference leaves the sheet")
            return replace(a, row=a.row + count)
        if a.col is None or a.col < at:
            return a
        if a.col + count >= MAX_COLS:
            raise OffSheet("reference leaves the sheet")
        return replace(a, col=a.col + count)

    return replace(ref, start=move(ref.start), end=move(ref.end))


def transpose_ref(ref: Ref, top: int, left: int) -> Ref:
    """`ref` mirrored on the diagonal through sheet cell (top, left), as when the table there
    is transposed: the cell `dr` rows and `dc` columns from the corner goes `dc` rows and `dr`
    columns from it; the `$` flags swap with their parts, whole columns become whole rows.
    `OffSheet` when a part lands before the sheet's first row or column."""
    if ref.start is None:
        return ref

    def flip(a: Address | None) -> Address | None:
        if a is None:
            return None
        row = None if a.col is None else top + a.col - left
        col = None if a.row is None else left + a.row - top
        if (row is not None and not 0 <= row < MAX_ROWS) or (
            col is not None and not 0 <= col < MAX_COLS
        ):
            raise OffSheet("reference leaves the sheet")
        return Address(row, col, a.abs_col, a.abs_row)

    return replace(ref, start=flip(ref.start), end=flip(ref.end))
