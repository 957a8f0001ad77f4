"""Re-anchoring: a formula copied from its cell to another, as Excel's fill or paste does it.

Relative row/column parts move with the cell, `$` parts stay, in references into another
workbook (`[1]LEM!X269`, kept by the parser as an opaque name) too; the copy is printed from the
source's AST with `fortap.formula.printer.to_text`, so two candidates with the same meaning have
the same text. A copy whose moved reference would leave the sheet (row < 1, column < A, or past
XFD1048576) does not exist: Excel would write `#REF!`, and no user wants that suggestion.
`land` then says what the copy's references cover in the visible workbook (numbers, text,
empty cells), with the hidden cells (the target, a hidden block) counted as empty.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from fortap.errors import FortapError
from fortap.formula import Formula, parse_formula
from fortap.formula.nodes import Node, Ref, walk
from fortap.formula.printer import to_text
from fortap.formula.references import OffSheet, ref_a1, ref_box, shift_ref

Place = tuple[str, int, int]


@dataclass(frozen=True)
class Copy:
    """A formula re-anchored at a cell: its text and the references it now holds."""

    text: str
    refs: tuple[Ref, ...]


def reanchor(formula: Formula, dst: tuple[int, int]) -> Copy | None:
    """`formula` (parsed at its own cell) copied to `dst`; None when a reference leaves the sheet."""
    assert formula.cell is not None
    return reanchor_ast(formula.ast, formula.cell, dst)


def reanchor_ast(ast: Node, src: tuple[int, int], dst: tuple[int, int]) -> Copy | None:
    """A formula tree written at cell `src`, copied to `dst` (see `reanchor`)."""
    dr, dc = dst[0] - src[0], dst[1] - src[1]
    refs: list[Ref] = []

    def text_of(ref: Ref) -> str:
        moved = shift_ref(ref, dr, dc)
        refs.append(moved)
        return ref_a1(moved)

    try:
        text = to_text(ast, text_of)
    except OffSheet:
        return None
    return Copy(text, tuple(refs))


def refs_of(ast: Node) -> tuple[Ref, ...]:
    return tuple(n for n in walk(ast) if isinstance(n, Ref))


def normal_text(text: str, host_sheet: str | None = None) -> str:
    """Comparison form of a formula: printed from its AST (redundant parentheses and
    `_xlfn.` prefixes gone), upper case, no spaces; `$` kept. Unparsable text: upper, no spaces."""
    try:
        printed = to_text(parse_formula(text, host_sheet).ast)
    except FortapError:
        printed = text
    return printed.upper().replace(" ", "")


@dataclass(frozen=True)
class Land:
    """What a copy's references cover: cell counts by kind, and flags."""

    cells: int = 0  # cells covered (areas clipped to the used range)
    numbers: int = 0
    text: int = 0
    self_ref: bool = False  # a reference covers the target itself (a circular formula)
    other_sheet: bool = False  # a reference names another sheet
    unknown: bool = False  # a name, an external or a missing sheet: nothing to count


def land(ctx, host: str, refs: tuple[Ref, ...], target: Place, hidden: Collection[Place]) -> Land:
    """Counts over the visible cells the references cover (`ctx` a `BookContext`)."""
    cells = numbers = text = 0
    self_ref = other = unknown = False
    for ref in refs:
        box = ref_box(ref)
        sheet = ref.sheet or host
        sheet_ctx = ctx.sheets.get(sheet)
        if box is None or sheet_ctx is None:
            unknown = True
            continue
        other = other or sheet != host
        s = sheet_ctx.sheet
        top, left = box[0], box[1]
        bottom, right = min(box[2], max(s.n_rows - 1, top)), min(box[3], max(s.n_cols - 1, left))
        clipped = (top, left, bottom, right)
        n_num, n_text = sheet_ctx.count("number", clipped), sheet_ctx.count("text", clipped)
        if n_num is None or n_text is None:
            unknown = True
            continue
        for h_sheet, r, c in hidden:
            if h_sheet == sheet and top <= r <= bottom and left <= c <= right:
                kind = sheet_ctx.kind(r, c)
                n_num -= kind == "number"
                n_text -= kind == "text"
                if (h_sheet, r, c) == target:
                    self_ref = True
        cells += (bottom - top + 1) * (right - left + 1)
        numbers += n_num
        text += n_text
    return Land(cells, numbers, text, self_ref, other, unknown)
