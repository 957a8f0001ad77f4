"""Faults injected into a real workbook, as mutation testing does, to measure `fortap audit`.

A *block* is a run of at least `BLOCK_MIN` adjacent formula cells along a column or a row
whose R1C1 text is the same (a dragged formula): the audit's own formula runs
(`fortap.audit.structure.runs` over a sheet's parsed formulas) cut where the R1C1 changes.
Five kinds of fault, each on a cell inside a block (never at its ends):
- `typed-number`: the formula replaced by the value it shows, typed as a number (a formula
  typed over with its own result, the slip the audit's missing-formula findings look for);
- `shifted-reference`: one same-sheet cell reference of the formula moved by one row or
  column, staying on the sheet and off the cell itself (`=B7*C7` written `=B8*C7`);
- `constant-for-reference`: one same-sheet cell reference replaced by the number it holds
  (`=B7*C7` -> `=B7*0.08`);
- `swapped-function`: `SUM` <-> `AVERAGE` or `MAX` <-> `MIN`, one call;
- `absolute-reference`: one relative reference made absolute along the block (`=B7` ->
  `=B$7` down a column: the same value, wrong once filled).
The last three are `fault_edits`' edits of the formula's text.

`plan` picks faults with an explicit `rng`: blocks in a random order, a random interior cell,
the kinds there are fewest of so far first (the next when the cell cannot take one), at most
one fault per block, and on one sheet no two faults closer
than `gap` rows and columns, so that several faults can share one copy without one standing
in another's block (each copy is audited once: one audit per copy instead of one per fault).
`write_copy` (`audit.fault_files`) writes them into a copy of the file; `bench/audit.py --faults`
measures the audit on them (`audit.fault_recall`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from fortap.audit.fault_edits import anchored, constant_for, mentions, swappable, swapped
from fortap.audit.structure import AXES, runs
from fortap.errors import FortapError
from fortap.formula import parse_formula
from fortap.formula.nodes import Ref
from fortap.formula.references import MAX_COLS, MAX_ROWS, ref_a1
from fortap.sheet.model import a1
from fortap.suggest.api import SheetContext, refs_of

BLOCK_MIN = 3  # a dragged block: this many adjacent cells of one R1C1 text, or more
TYPED = "typed-number"
SHIFTED = "shifted-reference"
CONSTANT = "constant-for-reference"
SWAPPED = "swapped-function"
ANCHORED = "absolute-reference"
FAULT_KINDS = (TYPED, SHIFTED, CONSTANT, SWAPPED, ANCHORED)
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # a reference moved by one row or column


@dataclass(frozen=True)
class Block:
    """Cells of one dragged block of a sheet, in order along `axis` (0 column, 1 row)."""

    sheet: str
    axis: int
    cells: tuple[tuple[int, int], ...]
    r1c1: str


@dataclass(frozen=True)
class Fault:
    """One injected fault: the cell (0-based), its kind, the formula it held, and what it holds
    now (`after`: the shifted formula, or None for a typed number, which keeps the cell's
    cached value). `value`: the shifted formula's value to cache (None: cache none)."""

    sheet: str
    row: int
    col: int
    kind: str
    before: str
    after: str | None = None
    value: float | None = None

    @property
    def place(self) -> tuple[str, int, int]:
        return (self.sheet, self.row, self.col)

    def to_json(self) -> dict:
        return {"sheet": self.sheet, "cell": a1(self.row, self.col), "kind": self.kind,
                "before": self.before, "after": self.after}  # fmt: skip


def blocks(name: str, sc: SheetContext) -> list[Block]:
    """The dragged blocks of one sheet, down its columns and along its rows."""
    out = []
    for axis in AXES:
        for run in runs(set(sc.cells), axis):
            texts = [sc.r1c1s[sc.group[sc.index[c]]] for c in run.cells]
            start = 0
            for i in range(1, len(texts) + 1):
                if i == len(texts) or texts[i] != texts[start]:
                    if i - start >= BLOCK_MIN:
                        out.append(Block(name, axis, run.cells[start:i], texts[start]))
                    start = i
    return out


def plan(sheets: dict[str, SheetContext], n: int, rng: np.random.Generator, gap: int = 10,
         avoid: frozenset[tuple[str, int, int]] = frozenset()) -> list[Fault]:  # fmt: skip
    """Up to `n` faults over the sheets' blocks (see the module doc); `avoid`: cells that must
    keep their formula (the head of a shared formula, which its followers are written from)."""
    every = [b for name, sc in sheets.items() for b in blocks(name, sc)]
    # the blocks that can take the rarest kind (a `SUM`, `AVERAGE`, `MAX` or `MIN` in their
    # formula) first: drawn at random, a book's n faults seldom reach them (14 of 204 did)
    order = sorted(rng.permutation(len(every)), key=lambda i: not swappable(every[i].r1c1))
    faults: list[Fault] = []
    for i in order:
        if len(faults) == n:
            break
        block = every[i]
        cell = block.cells[int(rng.integers(1, len(block.cells) - 1))]
        place = (block.sheet, *cell)
        if place in avoid or any(_near(f, place, gap) for f in faults):
            continue
        # the kinds there are fewest of first (ties in `FAULT_KINDS` order): a rare one
        # (`SUM` or `MAX` in the block) takes every block that can take it
        have = {k: sum(f.kind == k for f in faults) for k in FAULT_KINDS}
        for kind in sorted(FAULT_KINDS, key=have.__getitem__):
            fault = _fault(sheets[block.sheet], block, cell, kind, rng)
            if fault is not None:
                faults.append(fault)
                break
    return faults


def _near(f: Fault, place: tuple[str, int, int], gap: int) -> bool:
    return f.sheet == place[0] and abs(f.row - place[1]) < gap and abs(f.col - place[2]) < gap


def _fault(sc: SheetContext, block: Block, cell, kind: str, rng) -> Fault | None:
    sheet = block.sheet
    formula = sc.formulas[sc.index[cell]]
    if formula.array:
        return None
    if kind == TYPED:
        value = sc.sheet.cell(*cell).value
        number = isinstance(value, float) and not isinstance(value, bool) and math.isfinite(value)
        return Fault(sheet, *cell, TYPED, formula.text) if number else None
    text, ast = formula.text, formula.ast
    if kind == SHIFTED:
        after = shifted(text, ast, sheet, cell, rng)
    elif kind == CONSTANT:
        after = constant_for(text, ast, sc, sheet, cell, rng)
    elif kind == SWAPPED:
        after = swapped(text, sheet, cell, rng)
    else:
        after = anchored(text, ast, sheet, cell, block.axis, rng)
    return None if after is None else Fault(sheet, *cell, kind, text, after)


def shifted(text: str, ast, sheet: str, cell: tuple[int, int], rng) -> str | None:
    """`text` with one of its same-sheet cell references moved by one row or column (picked
    with `rng`); None when none can be: no such reference, or its text is not found exactly
    once in the formula, so that the rest of the text stays as the workbook wrote it."""
    refs = [r for r in refs_of(ast) if r.kind == "cell" and r.sheet in (None, sheet)]
    for i in rng.permutation(len(refs)):
        ref = refs[i]
        old = ref_a1(ref, keep_sheet=False)
        found = [m for m in mentions(old).finditer(text)]
        if len(found) != 1:
            continue
        for j in rng.permutation(len(STEPS)):
            moved = _moved(ref, *STEPS[j])
            if moved is None or (moved.start.row, moved.start.col) == cell:
                continue
            at = found[0]
            after = text[: at.start()] + ref_a1(moved, keep_sheet=False) + text[at.end() :]
            if _same_computation(text, after, sheet, cell):
                return after
    return None


def _moved(ref: Ref, dr: int, dc: int) -> Ref | None:
    s = ref.start
    row, col = s.row + dr, s.col + dc
    if not (0 <= row < MAX_ROWS and 0 <= col < MAX_COLS):
        return None
    return replace(ref, start=replace(s, row=row, col=col))


def _same_computation(before: str, after: str, sheet: str, cell) -> bool:
    """The shifted text parses to the same sketch with another R1C1 (a quoted "B7" in a string
    would have been moved instead of the reference: then the R1C1 stays)."""
    try:
        a, b = parse_formula(before, sheet, cell), parse_formula(after, sheet, cell)
    except FortapError:
        return False
    return a.sketch == b.sketch and a.r1c1 != b.r1c1
