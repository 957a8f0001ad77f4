"""Relational candidates: a lookup or a conditional aggregate into another table of the workbook.

A formula new to its sheet often reads another table by a key of its row: a price by the product
id, a total by the region's name. Where the target's row holds a key that another table's
column holds too (`relational_tables`: key cells, lookup runs, tables), this source writes, per
table, for its value columns (the one whose header is the target's column label first, then the
nearest ones right of the key column, then left of it):

- lookups: `VLOOKUP(key,table,n,FALSE)` and `VLOOKUP(key,table,n,0)` (value columns right of
  the key column; `FALSE()` where the workbook's visible formulas write the function, as files
  saved from .xls do),
  `INDEX(values,MATCH(key,keys,0))`, and `XLOOKUP(key,keys,values)` where the workbook's visible
  formulas already call one of Excel's newer functions (`NEWER`); each also inside
  `IFERROR(...,x)`, x the second argument the sheet's visible `IFERROR`s give most, and inside
  `IF(key="","",...)`, where the sheet's visible formulas guard that way;
- conditional aggregates over the table, with the key as criterion: `SUMIF`, `SUMIFS`,
  `AVERAGEIF`, `AVERAGEIFS` over numeric value columns, `COUNTIF` and `COUNTIFS`; and where a
  column of the table holds the target's column label, the same with that label's cell as a
  second criterion (`SUMIFS(values,keys,$A5,months,B$4)`).

`$` goes where a person puts it to fill the block: table ranges absolute; the key cell relative
in its row (filled down); its column absolute when the block also fills across (a visible
neighbour in the target's row calls these functions) or when a column label is a criterion (the
label's row is then absolute); a value column that follows the target's column label moves with
it across (`G$19:G$82`). A table on another sheet is named by it.

Features (`FEATURES`): the formula's kind and guard, the key's kind and distance, the table's
rank, sheet, share of shared keys, size and whether the key is unique in it, the value column's
header match, offset and numeric share, the criteria count, the fill direction, whether the
table is a copy of the target's own (`relational_tables`), an exact match written 0, and how many
visible formulas of the sheet and of the workbook call the formula's function. At most `KEEP`
candidates per target, in generation order: the tables that are not copies of the target's own
first, then by key cell and table rank.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.nodes import Address, Const, Func, Node, Op, Ref
from fortap.formula.printer import to_text
from fortap.sheet.model import a1, column_letter
from fortap.suggest.candidates.base import Candidate, SourceFunction
from fortap.suggest.candidates.relational_index import (
    IF_BLANK,
    IFERROR_MARK,
    function_use,
    key_index,
)  # fmt: skip
from fortap.suggest.candidates.relational_tables import (
    Hidden,
    KeyCell,
    Table,
    column_label,
    key_cells,
    numeric_share,
    tables,
)  # fmt: skip
from fortap.suggest.context import BookContext, Place, Target

LOOKS = frozenset(("VLOOKUP", "INDEX", "MATCH", "XLOOKUP", "SUMIF", "SUMIFS", "AVERAGEIF",
                   "AVERAGEIFS", "COUNTIF", "COUNTIFS"))  # fmt: skip
KINDS = {name: i for i, name in enumerate(("VLOOKUP", "INDEX", "XLOOKUP", "SUMIF", "SUMIFS",
         "AVERAGEIF", "AVERAGEIFS", "COUNTIF", "COUNTIFS"))}  # fmt: skip
WRAPS = {"": 0, "IFERROR": 1, "IF": 2}
NEWER = frozenset(("XLOOKUP", "XMATCH", "FILTER", "UNIQUE", "SORT", "SORTBY", "SEQUENCE",
                   "LET", "LAMBDA", "TEXTJOIN", "CONCAT", "IFS", "SWITCH", "MAXIFS",
                   "MINIFS"))  # fmt: skip
FEATURES = ("rel_kind", "rel_wrap", "rel_key_text", "rel_key_date", "rel_key_dist",
            "rel_key_rank", "rel_table_rank", "rel_same_sheet", "rel_overlap", "rel_log_shared",
            "rel_unique", "rel_log_rows", "rel_width", "rel_header_match", "rel_val_offset",
            "rel_val_numeric", "rel_criteria", "rel_across", "rel_sheet_uses", "rel_book_uses",
            "rel_twin", "rel_zero")  # fmt: skip
VALUE_COLS = 3  # value columns per table
SUM_COLS = 2  # numeric value columns aggregated per table
KEEP = 40  # candidates per target
LABEL_ROWS = 200  # data rows searched for the target's column label
ZERO = Const("num", 0.0)  # MATCH's exact match; VLOOKUP's too, as many write it


@dataclass(frozen=True)
class Style:
    """How the target's sheet and workbook write such formulas (visible formulas only)."""

    across: bool  # the block fills across: the key's column is absolute
    iferror: Node | None  # the IFERROR second argument the sheet writes most, None if none
    if_blank: bool  # the sheet guards with IF(cell="","",...)
    newer: bool  # the workbook calls a function of Excel 2019 / 365
    exact: Node  # VLOOKUP's exact-match flag: FALSE, or FALSE() where the workbook writes that
    sheet_uses: Counter
    book_uses: Counter


def candidates(ctx: BookContext, target: Target, hidden: frozenset[Place]) -> list[Candidate]:
    """Relational `Candidate`s for `target` (module doc)."""
    ix = key_index(ctx)
    blind = Hidden(hidden)
    keys = key_cells(ctx, ix, target, blind)
    if not keys:
        return []
    found = [(k, kc, tables(ctx, ix, kc, target, blind)) for k, kc in enumerate(keys)]
    if not any(t for _, _, t in found):
        return []
    style = _style(ctx, target, hidden)
    label = column_label(ctx, target, blind)
    pairs = [(t.twin, k, n, kc, t) for k, kc, ts in found for n, t in enumerate(ts)]
    out: list[tuple[str, str, dict]] = []
    for _, key_rank, table_rank, kc, table in sorted(pairs, key=lambda p: p[:3]):
        common = _common(target, kc, table, key_rank, table_rank, style)
        out += _lookups(ctx, target, kc, table, label, style, common, blind)
        out += _aggregates(ctx, target, kc, table, label, style, common, blind)
        if len(out) >= 2 * KEEP:  # enough: tables the target reads, nearest keys' best, first
            break
    seen, kept = set(), []
    for text, why, feats in out:
        if text not in seen and len(kept) < KEEP:
            seen.add(text)
            kept.append(Candidate(text, "relational", why, feats))
    return kept


def _style(ctx: BookContext, target: Target, hidden: frozenset[Place]) -> Style:
    use = function_use(ctx)
    sheet_uses, book_uses = use.visible(target.sheet, hidden), use.visible(None, hidden)
    guards = Counter({k: n for k, n in sheet_uses.items() if k.startswith(IFERROR_MARK)})
    iferror = None
    if guards:
        text = guards.most_common(1)[0][0][len(IFERROR_MARK) :]
        iferror = _parsed(text, target) if text != '""' else Const("str", "")
    across = False
    for dc in (-1, 1):  # a neighbour of the row calling these functions: the block fills across
        place = (target.sheet, target.row, target.col + dc)
        if place not in hidden and use.per_cell.get(place, frozenset()) & LOOKS:
            across = True
    exact = Func("FALSE", ()) if book_uses["FALSE"] else Const("bool", False)
    return Style(across, iferror, sheet_uses[IF_BLANK] > 0, bool(NEWER & set(book_uses)), exact,
                 sheet_uses, book_uses)  # fmt: skip


def _common(target: Target, kc: KeyCell, table: Table, key_rank: int, table_rank: int,
            style: Style) -> dict[str, float]:  # fmt: skip
    return {
        "rel_key_text": float(kc.key[0] == "t"),
        "rel_key_date": float(kc.key[0] == "d"),
        "rel_key_dist": float(target.col - kc.col),
        "rel_key_rank": float(key_rank),
        "rel_table_rank": float(table_rank),
        "rel_same_sheet": float(table.sheet == target.sheet),
        "rel_overlap": table.overlap,
        "rel_log_shared": math.log1p(table.shared),
        "rel_unique": float(table.unique),
        "rel_log_rows": math.log1p(table.rows),
        "rel_width": float(table.right - table.left + 1),
        "rel_twin": float(table.twin),
    }


def _value_cols(table: Table, label: tuple[int, str] | None) -> list[tuple[int, bool]]:
    """(column, header matches the target's column label), matched first, then nearest right
    of the key column, then nearest left (`VALUE_COLS` at most)."""
    text = label[1] if label else None
    others = [c for c in range(table.left, table.right + 1) if c != table.key_col]
    order = sorted(others, key=lambda c: (table.header.get(c) != text or text is None,
                                          c < table.key_col, abs(c - table.key_col)))  # fmt: skip
    return [(c, text is not None and table.header.get(c) == text) for c in order[:VALUE_COLS]]


def _area(table: Table, target: Target, left: int, right: int, abs_col: bool = True) -> Ref:
    sheet = None if table.sheet == target.sheet else table.sheet
    return Ref("area", sheet, Address(table.top, left, True, abs_col),
               Address(table.bottom, right, True, abs_col))  # fmt: skip


def _key_ref(target: Target, kc: KeyCell, abs_col: bool) -> Ref:
    return Ref("cell", None, Address(target.row, kc.col, False, abs_col))


def _lookups(ctx, target, kc, table, label, style: Style, common: dict, hidden) -> list[tuple]:
    key = _key_ref(target, kc, style.across)
    keys = _area(table, target, table.key_col, table.key_col)
    where = _where(table, target)
    out = []
    for col, matched in _value_cols(table, label):
        values = _area(table, target, col, col)
        forms: list[tuple[str, Node, bool]] = []  # (kind, tree, exact match written as 0)
        if col > table.key_col:
            width = Const("num", float(col - table.key_col + 1))
            table_ref = _area(table, target, table.key_col, table.right)
            for flag in (style.exact, ZERO):
                forms.append(
                    ("VLOOKUP", Func("VLOOKUP", (key, table_ref, width, flag)), flag is ZERO)
                )
        match = Func("MATCH", (key, keys, ZERO))
        forms.append(("INDEX", Func("INDEX", (values, match)), True))
        if style.newer:
            forms.append(("XLOOKUP", Func("XLOOKUP", (key, keys, values)), False))
        feats = {**common, "rel_header_match": float(matched),
                 "rel_val_offset": float(col - table.key_col),
                 "rel_val_numeric": numeric_share(ctx, table, col, hidden), "rel_criteria": 1.0,
                 "rel_across": float(style.across)}  # fmt: skip
        for kind, node, zero in forms:
            wraps = [("", node)]
            if style.iferror is not None:
                wraps.append(("IFERROR", Func("IFERROR", (node, style.iferror))))
            if style.if_blank:
                test = Op("=", (key, Const("str", "")))
                wraps.append(("IF", Func("IF", (test, Const("str", ""), node))))
            for wrap, tree in wraps:
                f = feats | _uses(style, kind) | {"rel_kind": float(KINDS[kind]),
                                                  "rel_wrap": float(WRAPS[wrap]),
                                                  "rel_zero": float(zero)}  # fmt: skip
                why = f"{kind} of this row's key in {where}, column {column_letter(col)}"
                out.append((to_text(tree), why, f))
    return out


def _aggregates(ctx, target, kc, table, label, style: Style, common: dict, hidden) -> list[tuple]:
    second = _second_criterion(ctx, target, table, label, hidden)
    across = style.across or second is not None
    key = _key_ref(target, kc, across)
    keys = _area(table, target, table.key_col, table.key_col)
    crits: list[tuple[Node, ...]] = [(keys, key)]
    if second is not None:
        crits.append((keys, key, *second))
    where = _where(table, target)
    numeric = [
        (c, m) for c, m in _value_cols(table, label) if numeric_share(ctx, table, c, hidden) >= 0.5
    ]
    out = []
    for crit in crits:
        n = len(crit) // 2
        base = {**common, "rel_criteria": float(n), "rel_across": float(across),
                "rel_header_match": 0.0, "rel_val_offset": 0.0, "rel_val_numeric": 0.0}  # fmt: skip
        forms: list[tuple[str, Node, dict]] = [("COUNTIFS", Func("COUNTIFS", crit), base)]
        if n == 1:
            forms.insert(0, ("COUNTIF", Func("COUNTIF", crit), base))
        for i, (col, matched) in enumerate(numeric[:SUM_COLS]):
            values = _area(table, target, col, col, abs_col=not (across and matched))
            f = base | {"rel_header_match": float(matched),
                        "rel_val_offset": float(col - table.key_col),
                        "rel_val_numeric": 1.0}  # fmt: skip
            if n == 1:
                forms.append(("SUMIF", Func("SUMIF", (keys, key, values)), f))
            forms.append(("SUMIFS", Func("SUMIFS", (values, *crit)), f))
            if i == 0:
                if n == 1:
                    forms.append(("AVERAGEIF", Func("AVERAGEIF", (keys, key, values)), f))
                forms.append(("AVERAGEIFS", Func("AVERAGEIFS", (values, *crit)), f))
        for kind, tree, f in forms:
            feats = f | _uses(style, kind) | {"rel_kind": float(KINDS[kind]), "rel_wrap": 0.0}
            why = f"{kind} over {where} where its key column equals this row's key"
            out.append((to_text(tree), why, feats))
    return out


def _second_criterion(
    ctx, target: Target, table: Table, label, hidden: Hidden
) -> tuple[Node, Node] | None:
    """(column range, label cell) for the first column of `table` (not its key column) with a
    visible cell holding the target's column label in its first `LABEL_ROWS` data rows."""
    if label is None:
        return None
    rows = (table.top, min(table.bottom, table.top + LABEL_ROWS))
    ix = key_index(ctx)
    if table.sheet in ix.complete:  # the postings list every cell holding the label
        cols = [c for run, r in ix.postings.get(("t", label[1]), ())
                if (c := ix.runs[run][1]) != table.key_col and ix.runs[run][0] == table.sheet
                and table.left <= c <= table.right and rows[0] <= r <= rows[1]
                and (table.sheet, r, c) not in hidden.cells]  # fmt: skip
    else:
        cells = ctx.sheets[table.sheet].sheet.cells
        cols = [c for c in range(table.left, table.right + 1) if c != table.key_col
                for r in range(rows[0], rows[1] + 1)
                if (cell := cells.get((r, c))) is not None and cell.kind == "text"
                and str(cell.value).strip().casefold() == label[1]
                and (table.sheet, r, c) not in hidden.cells]  # fmt: skip
    if not cols:
        return None
    at = Ref("cell", None, Address(label[0], target.col, True, False))
    return _area(table, target, min(cols), min(cols)), at


def _uses(style: Style, kind: str) -> dict[str, float]:
    return {"rel_sheet_uses": math.log1p(style.sheet_uses[kind]),
            "rel_book_uses": math.log1p(style.book_uses[kind])}  # fmt: skip


def _where(table: Table, target: Target) -> str:
    box = f"{a1(table.top, table.left)}:{a1(table.bottom, table.right)}"
    return box if table.sheet == target.sheet else f"'{table.sheet}'!{box}"


def _parsed(text: str, target: Target) -> Node | None:
    try:
        return parse_formula("=" + text, target.sheet, (target.row, target.col)).ast
    except FortapError:
        return None


SOURCE = SourceFunction("relational", needs_formulas=True, FEATURES=FEATURES, candidates=candidates)
