"""Structured references (`Sales[Qty]`, `Sales[[#This Row],[Qty]]`, `[@Qty]`) -> A1 ranges.

The parser keeps a structured reference as text (`Ref("table")`, no cells), which is also how
re-anchoring leaves it: a table reference does not move when a formula is copied. To compute
or count what one reads, it is resolved here against the workbook's table definitions
(`TableDef`, read from the file by `fortap.sheet.tables`):

- the item specifiers pick rows: `#Data` (the default), `#Headers`, `#Totals`, `#All`, and
  `#This Row` (spelt `@`: the row of the formula's own cell, inside the table's data);
- column names pick columns: one (`[Qty]`), a span (`[Qty]:[Price]`), or all when none is given;
- a reference without a table name (`[@Qty]`, `[Qty]`) means the table holding the formula.

In a column name `'` escapes the next character (`'#`, `'[`, `']`, `''`). A reference that
names no known table, a column the table lacks, or a part it does not have (`#Totals` without
a totals row, `@` outside its data rows) is left as written.
"""

from __future__ import annotations

from dataclasses import dataclass

import formualizer

from fortap.formula.references import quote_sheet
from fortap.sheet.model import Region, TableDef, Workbook, a1

SPECIFIERS = ("#all", "#data", "#headers", "#totals", "#this row")


@dataclass(frozen=True)
class StructuredRef:
    """One structured reference, parsed: its table (None: the formula's own), the item
    specifiers (lower case, `@` as `#this row`) and the first and last column names (None:
    every column)."""

    table: str | None
    items: frozenset[str]
    first: str | None = None
    last: str | None = None


def parse_structured(text: str) -> StructuredRef | None:
    """`Sales[[#This Row],[Qty]]` -> its parts; None when `text` is no structured reference."""
    at = text.find("[")
    if at < 0 or not text.endswith("]") or "!" in text[:at]:
        return None
    table, inner = text[:at] or None, text[at + 1 : -1]
    items: set[str] = set()
    if inner.startswith("@"):
        items.add("#this row")
        inner = inner[1:]
        if inner and not inner.startswith("["):
            return StructuredRef(table, frozenset(items), _unescape(inner), _unescape(inner))
    if not inner.startswith("["):  # `Sales[Qty]`, `Sales[#Data]`, `Sales[]`
        if inner.startswith("#"):
            return _with_items(table, items, [inner], None)
        name = _unescape(inner) if inner else None
        return StructuredRef(table, frozenset(items or {"#data"}), name, name)
    parts = _split(inner)
    if parts is None:
        return None
    specs = [p[1:-1] for p in parts if p.startswith("[#") or p == "[@]"]
    columns = [p for p in parts if not (p.startswith("[#") or p == "[@]")]
    if len(columns) > 1:
        return None
    return _with_items(table, items, specs, columns[0] if columns else None)


def _with_items(table, items: set[str], specs: list[str], columns: str | None):
    for spec in specs:
        key = "#this row" if spec == "@" else spec.lower()
        if key not in SPECIFIERS:
            return None
        items.add(key)
    first = last = None
    if columns is not None:
        span = _split(columns, ":")
        if span is None or len(span) > 2 or not all(s.startswith("[") for s in span):
            return None
        first, last = _unescape(span[0][1:-1]), _unescape(span[-1][1:-1])
    return StructuredRef(table, frozenset(items or {"#data"}), first, last)


def _split(text: str, sep: str = ",") -> list[str] | None:
    """`text` cut at `sep` outside brackets (escapes honoured), each part stripped; None when
    the brackets do not balance."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "'":
            i += 1
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                return None
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    if depth:
        return None
    parts.append(text[start:].strip())
    return parts


def _unescape(name: str) -> str:
    out, i = [], 0
    while i < len(name):
        if name[i] == "'" and i + 1 < len(name):
            i += 1
        out.append(name[i])
        i += 1
    return "".join(out)


class TableIndex:
    """A workbook's tables by name (case-insensitive), each with its sheet."""

    def __init__(self, tables: dict[str, tuple[str, TableDef]]) -> None:
        self.tables = tables

    @classmethod
    def from_workbook(cls, book: Workbook) -> TableIndex:
        return cls({t.name.casefold(): (s.name, t) for s in book.sheets for t in s.tables})

    def __bool__(self) -> bool:
        return bool(self.tables)

    def holding(self, sheet: str, row: int, col: int) -> tuple[str, TableDef] | None:
        """The table whose range holds the 0-based cell, if any."""
        for name, table in self.tables.values():
            if name == sheet and table.region.contains(row, col):
                return name, table
        return None

    def region(self, ref: StructuredRef, sheet: str, row: int, col: int):
        """(table's sheet, `Region`) that `ref` reads from the 0-based cell (sheet, row, col);
        None when it does not resolve (module doc)."""
        found = (
            self.tables.get(ref.table.casefold()) if ref.table else self.holding(sheet, row, col)
        )
        if found is None:
            return None
        host, table = found
        rows = _rows(table, ref.items, row if host == sheet else None)
        cols = _cols(table, ref.first, ref.last)
        if rows is None or cols is None:
            return None
        return host, Region(rows[0], cols[0], rows[1], cols[1])


def _rows(table: TableDef, items: frozenset[str], row: int | None) -> tuple[int, int] | None:
    top, bottom = table.region.top, table.region.bottom
    first, last = table.data_rows
    if "#this row" in items:
        ok = len(items) == 1 and row is not None and first <= row <= last
        return (row, row) if ok else None
    if "#all" in items:
        return top, bottom
    spans = {
        "#headers": (top, first - 1),
        "#data": (first, last),
        "#totals": (last + 1, bottom),
    }
    chosen = sorted(spans[i] for i in items)
    if any(a > b for a, b in chosen):
        return None  # a part the table does not have
    for (_, end), (start, _) in zip(chosen, chosen[1:], strict=False):
        if start != end + 1:
            return None  # `#Headers` with `#Totals`: not one rectangle
    return chosen[0][0], chosen[-1][1]


def _cols(table: TableDef, first: str | None, last: str | None) -> tuple[int, int] | None:
    left = table.region.left
    if first is None or last is None:
        return left, table.region.right
    names = [c.casefold() for c in table.columns]
    try:
        a, b = names.index(first.casefold()), names.index(last.casefold())
    except ValueError:
        return None
    return left + min(a, b), left + max(a, b)


def region_a1(sheet: str, region: Region, host: str) -> str:
    """Absolute A1 text of `region`, qualified when it lies on another sheet than `host`."""
    start = a1(region.top, region.left, absolute=True)
    end = a1(region.bottom, region.right, absolute=True)
    text = start if start == end else f"{start}:{end}"
    return text if sheet == host else f"{quote_sheet(sheet)}!{text}"


def resolve_structured(formula: str, index: TableIndex, sheet: str, row: int, col: int) -> str:
    """`formula` entered at the 0-based cell, each structured reference that resolves replaced
    by the absolute A1 range it reads (`=SUM(Sales[Qty])` -> `=SUM($B$2:$B$5)`)."""
    if not index or "[" not in formula:
        return formula
    try:
        tokens = formualizer.tokenize(formula).tokens()
    except formualizer.TokenizerError:
        return formula
    parts, pos = [], 0
    for token in tokens:
        if str(token.token_type) != "Operand" or "[" not in token.value:
            continue
        ref = parse_structured(token.value)
        found = None if ref is None else index.region(ref, sheet, row, col)
        if found is not None:
            parts += [formula[pos : token.start], region_a1(found[0], found[1], sheet)]
            pos = token.end
    return "".join(parts) + formula[pos:]
