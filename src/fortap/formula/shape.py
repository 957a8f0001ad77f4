"""Formula shapes: formulas that differ only in their cell addresses share all the work.

A spreadsheet is mostly dragged copies (`=B2*C2`, `=B3*C3`, ...), so after one copy has been
parsed, filtered and linearised, the others need only their addresses swapped in. The shape of
a formula is its text with every plain cell address (`$B$2`, `c7`) replaced by a slot marker;
string literals and quoted sheet names are kept whole so nothing inside them is touched.

A shape is trusted only after the first formula of that shape proved that its slots are exactly
the cell addresses formualizer saw, in the same order and with the same `$` flags; otherwise the
shape is marked unusable and its formulas always take the full path. Whole-column/row ranges,
names and other references stay in the shape text, so they never need a slot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fortap.formula.nodes import Address, Array, Func, Node, Op, Ref, walk
from fortap.formula.printer import to_text
from fortap.formula.references import (
    MAX_ROWS,
    address_r1c1,
    column_index,
    quote_sheet,
    ref_a1,
)
from fortap.formula.tokens import RANGE, FormulaToken

# A cell address must not touch a name character, a function's `(`, a sheet's `!` or a
# structured reference's brackets. Strings and quoted sheet names are matched (and kept whole)
# first when the text has quotes.
_ADDRESS = r"(?<![A-Za-z0-9_.$\[\]\\])(\$?[A-Za-z]{1,3}\$?[1-9][0-9]{0,6})(?![A-Za-z0-9_.(!\[\]])"
_CELL = re.compile(_ADDRESS)
_SCAN = re.compile(r'"(?:[^"]|"")*"' r"|'(?:[^']|'')*'|" + _ADDRESS)
_PARTS = re.compile(r"(\$?)([A-Za-z]{1,3})(\$?)([0-9]+)")
_SLOT_TOKEN = re.compile(r"[A-Za-z]{1,3}[0-9]+")
SLOT = "\x00"

Slot = tuple[int, int, bool, bool, str]  # row, col, abs_row, abs_col, A1 text without `$`
_SLOTS: dict[str, Slot | None] = {}


def _slot(text: str) -> Slot | None:
    """`$B$2` -> (1, 1, True, True, "B2"); None beyond XFD or row 1048576 (memoised)."""
    slot = _SLOTS.get(text, False)
    if slot is False:
        d1, letters, d2, digits = _PARTS.fullmatch(text).groups()  # type: ignore[union-attr]
        col, row = column_index(letters), int(digits) - 1
        ok = col is not None and row < MAX_ROWS
        slot = (row, col, d2 == "$", d1 == "$", letters.upper() + digits) if ok else None
        if len(_SLOTS) > 1_000_000:
            _SLOTS.clear()
        _SLOTS[text] = slot  # type: ignore[assignment]
    return slot  # type: ignore[return-value]


def scan(text: str) -> tuple[str, list[Slot]] | None:
    """Formula text -> (shape text, its cell addresses in order); None if one is out of bounds."""
    if '"' in text or "'" in text:
        found, parts, last = [], [], 0
        for m in _SCAN.finditer(text):
            if m[1] is not None:
                found.append(m[1])
                parts.append(text[last : m.start()])
                last = m.end()
        parts.append(text[last:])
    else:
        pieces = _CELL.split(text)
        parts, found = pieces[::2], pieces[1::2]
    get = _SLOTS.get
    slots = [get(a) or _slot(a) for a in found]
    if None in slots:
        return None
    return SLOT.join(parts), slots  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Shape:
    """What a shape's first formula taught us: its AST and tokens with slot positions."""

    ast: Node
    tokens: tuple[FormulaToken, ...]
    slot_tokens: tuple[int, ...]  # index in `tokens` of the i-th slot
    slot_prefix: tuple[str, ...]  # sheet qualifier text (`Sheet1!`) on the i-th slot's token
    range_tokens: tuple[int, ...]  # index in `tokens` of every token that has a cell
    sketch: tuple[str, ...]
    verdict: str
    r1c1_parts: tuple[str, ...] | None  # R1C1 text around the slots (None without a cell)


def slot_addresses(ast: Node) -> list[Address]:
    """Cell addresses of an AST's cell/area references in text order (whole rows/cols excluded)."""
    out: list[Address] = []

    def visit(n: Node) -> None:
        if isinstance(n, Ref):
            for a in (n.start, n.end):
                if a is not None and a.row is not None and a.col is not None:
                    out.append(a)
        elif isinstance(n, Op | Func):
            for a in n.args:
                visit(a)
        elif isinstance(n, Array):
            for row in n.rows:
                for c in row:
                    visit(c)

    visit(ast)
    return out


def substitute(ast: Node, slots: list[Slot]) -> Node:
    """The AST with its slot addresses replaced, in text order."""
    it = iter(slots)

    def swap(a: Address | None) -> Address | None:
        if a is None or a.row is None or a.col is None:
            return a
        return Address(*next(it)[:4])

    def visit(n: Node) -> Node:
        if isinstance(n, Ref):
            if n.start is None:
                return n
            return Ref(n.kind, n.sheet, swap(n.start), swap(n.end), n.name)
        if isinstance(n, Op):
            return Op(n.op, tuple(visit(a) for a in n.args))
        if isinstance(n, Func):
            return Func(n.name, tuple(visit(a) for a in n.args))
        if isinstance(n, Array):
            return Array(tuple(tuple(visit(c) for c in row) for row in n.rows))
        return n

    return visit(ast)


def fill_tokens(
    shape: Shape, slots: list[Slot]
) -> tuple[tuple[FormulaToken, ...], tuple[tuple[int, int], ...]]:
    """The shape's tokens with each slot's cell token rebuilt from this formula's address,
    and the cells of all `[RANGE]` tokens in order."""
    tokens = list(shape.tokens)
    for i, s, prefix in zip(shape.slot_tokens, slots, shape.slot_prefix, strict=True):
        tokens[i] = FormulaToken("CELL", prefix + s[4], RANGE, (s[0], s[1]))
    return tuple(tokens), tuple([tokens[i].cell for i in shape.range_tokens])  # type: ignore[misc]


def fill_r1c1(parts: tuple[str, ...], slots: list[Slot], cell: tuple[int, int]) -> str:
    """The `$`-aware R1C1 text: the shape's fixed parts with each slot's relative address."""
    out = [parts[0]]
    for s, part in zip(slots, parts[1:], strict=True):
        out.append(address_r1c1(Address(*s[:4]), cell))
        out.append(part)
    return "".join(out)


def _is_slot(a: Address | None) -> bool:
    return a is not None and a.row is not None and a.col is not None


def _slot_ref_text(ref: Ref) -> str:
    if ref.start is None:
        return ref_a1(ref)
    text = SLOT if ref.end is None else SLOT + ":" + SLOT
    return text if ref.sheet is None else quote_sheet(ref.sheet) + "!" + text


def learn(
    ast: Node,
    tokens: tuple[FormulaToken, ...],
    sketch: tuple[str, ...],
    verdict: str,
    slots: list[Slot],
) -> Shape | None:
    """The `Shape` of a fully parsed formula, or None when its slots are not exactly its cells."""
    if slot_addresses(ast) != [Address(*s[:4]) for s in slots]:
        return None
    addresses = slots
    slot_tokens, prefixes = [], []
    for i, t in enumerate(tokens):
        if t.cell is not None:
            sheet, bang, addr = t.text.rpartition("!")
            if _SLOT_TOKEN.fullmatch(addr):
                slot_tokens.append(i)
                prefixes.append(sheet + bang)
    if len(slot_tokens) != len(addresses):
        return None
    lines = any(
        isinstance(n, Ref)
        and n.start is not None
        and not (_is_slot(n.start) and (n.end is None or _is_slot(n.end)))
        for n in walk(ast)
    )
    parts = None
    if not lines:
        split = tuple(to_text(ast, _slot_ref_text).split(SLOT))
        parts = split if len(split) == len(addresses) + 1 else None
    ranges = tuple(i for i, t in enumerate(tokens) if t.cell is not None)
    return Shape(ast, tokens, tuple(slot_tokens), tuple(prefixes), ranges, sketch, verdict, parts)
