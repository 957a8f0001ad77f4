"""The public `Formula` value: one formula's AST, prefix tokens, sketch, ranges and verdict.

`parse_formula("=SUM(B2:B5)/B6", host_sheet="Sheet1", cell=(6, 3))` is the one entry point the
rest of fortap uses; a table's formula cells go through it once
(`fortap.formula.table_formulas`) and nothing downstream re-parses formula text (a test counts
the calls while a corpus is built). The shape memory below makes parsing a dragged copy cheap;
it does not stand in for carrying the `Formula`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fortap.formula.filters import verdict as filter_verdict
from fortap.formula.nodes import Node
from fortap.formula.parser import parse_ast
from fortap.formula.printer import to_text
from fortap.formula.references import ref_r1c1
from fortap.formula.shape import Shape, Slot, fill_r1c1, fill_tokens, learn, scan, substitute
from fortap.formula.sketch import prefix_tokens, ranges_of, sketch_of
from fortap.formula.tokens import FormulaToken


@dataclass(frozen=True)
class Formula:
    """A parsed formula.

    `tokens` are in prefix order; `sketch` is `[START]` + their vocabulary tokens + `[END]`;
    `ranges` the sheet (row, col) of each `[RANGE]` slot in order (every slot has one when the
    verdict is `keep`); `verdict` is `keep` or a discard reason from `filters.REASONS`; `r1c1` is
    the `$`-aware R1C1 text relative to `cell` (None without a cell), the identity used to tell
    a dragged copy from a new formula.
    """

    text: str
    tokens: tuple[FormulaToken, ...]
    sketch: tuple[str, ...]
    ranges: tuple[tuple[int, int], ...]
    verdict: str
    r1c1: str | None
    host_sheet: str | None = None
    cell: tuple[int, int] | None = None
    array: bool = False
    _ast: Node | tuple[Shape, list[Slot]] | None = field(default=None, repr=False, compare=False)

    @property
    def ast(self) -> Node:
        """The typed AST (built on first use for a formula that came from a known shape)."""
        ast = self._ast
        if isinstance(ast, tuple):
            shape, slots = ast
            ast = substitute(shape.ast, slots)
            object.__setattr__(self, "_ast", ast)
        assert ast is not None
        return ast

    @property
    def kept(self) -> bool:
        return self.verdict == "keep"


def r1c1_text(ast: Node, cell: tuple[int, int]) -> str:
    """`$`-aware R1C1 form of a formula written in `cell`: `=B7*$S$2` in D7 -> `=RC[-2]*R2C19`."""
    return to_text(ast, lambda ref: ref_r1c1(ref, cell))


# shape key -> its `Shape`; None when the shape cannot be reused; `_ONCE` while it has been
# seen only once (one-off shapes, a third of a typical list, then hold no memory: every object
# kept alive here slows Python's garbage collector for the rest of the run)
_SHAPES: dict[tuple[str, str | None, bool], Shape | object | None] = {}
_MAX_SHAPES = 100_000


def parse_formula(
    text: str,
    host_sheet: str | None = None,
    cell: tuple[int, int] | None = None,
    array: bool = False,
    *,
    reuse_shapes: bool = True,
) -> Formula:
    """Parse, linearise and filter one formula; `FormulaError` when the text does not parse.

    `host_sheet` is the sheet the formula lives on (decides cross-sheet), `cell` its 0-based
    (row, col) (needed for `r1c1`), `array` whether the cell holds an array (CSE) formula.
    With `reuse_shapes`, a formula whose shape (text up to cell addresses) was seen before is
    built from that shape instead of being parsed again (`fortap.formula.shape`); the result
    is the same either way.
    """
    if not reuse_shapes:
        return _parse_full(text, host_sheet, cell, array)
    scanned = scan(text)
    if scanned is None:
        return _parse_full(text, host_sheet, cell, array)
    shape_text, slots = scanned
    key = (shape_text, host_sheet, array)
    shape = _SHAPES.get(key, _UNSEEN)
    if shape is _UNSEEN or shape is _ONCE:
        formula = _parse_full(text, host_sheet, cell, array)
        if len(_SHAPES) >= _MAX_SHAPES:
            _SHAPES.clear()
        _SHAPES[key] = (
            _ONCE
            if shape is _UNSEEN
            else learn(formula.ast, formula.tokens, formula.sketch, formula.verdict, slots)
        )
        return formula
    if shape is None:
        return _parse_full(text, host_sheet, cell, array)
    return _from_shape(text, shape, slots, host_sheet, cell, array)  # type: ignore[arg-type]


_UNSEEN, _ONCE = object(), object()


def _from_shape(
    text: str,
    shape: Shape,
    slots: list[Slot],
    host_sheet: str | None,
    cell: tuple[int, int] | None,
    array: bool,
) -> Formula:
    tokens, ranges = fill_tokens(shape, slots)
    if cell is None:
        r1c1 = None
    elif shape.r1c1_parts is not None:
        r1c1 = fill_r1c1(shape.r1c1_parts, slots, cell)
    else:
        r1c1 = r1c1_text(substitute(shape.ast, slots), cell)
    return Formula(
        text, tokens, shape.sketch, ranges, shape.verdict, r1c1,
        host_sheet, cell, array, (shape, slots),
    )  # fmt: skip


def formula_of_ast(
    ast: Node, host_sheet: str | None = None, cell: tuple[int, int] | None = None,
    array: bool = False,
) -> Formula:  # fmt: skip
    """The `Formula` of an AST made by code rather than read from text (e.g. a parsed formula
    with its references moved, as fill-down does): the same value `parse_formula` gives for the
    AST's printed text, without printing and parsing it again."""
    return _from_ast(to_text(ast), ast, host_sheet, cell, array)


def _parse_full(
    text: str, host_sheet: str | None, cell: tuple[int, int] | None, array: bool
) -> Formula:
    return _from_ast(text, parse_ast(text), host_sheet, cell, array)


def _from_ast(
    text: str, ast: Node, host_sheet: str | None, cell: tuple[int, int] | None, array: bool
) -> Formula:
    tokens = prefix_tokens(ast)
    return Formula(
        text=text,
        tokens=tokens,
        sketch=sketch_of(tokens),
        ranges=ranges_of(tokens),
        verdict=filter_verdict(ast, host_sheet, array),
        r1c1=None if cell is None else r1c1_text(ast, cell),
        host_sheet=host_sheet,
        cell=cell,
        array=array,
        _ast=ast,
    )
