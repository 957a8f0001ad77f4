"""`Draft`: an example under construction by the objectives' target builders, held as arrays.

An objective never re-serialises a table: it inserts tokens at the end of the context
(`insert_context`), blanks cells in place (`blank`) or appends an out-of-table item after the
last cell (`append`), and every per-token column moves together. Appended items sit outside
the table: row/column `NULL_POS`, the serialiser's default format, and a constant tree
coordinate `(r, r, r, r)` that puts them far from every table cell in tree distance (reference
note §1.3), so they see little more than [CLS], the context and themselves.

A draft starts from a sample (`ExampleArrays`) and copies what it changes, so the sample is
reused as it is on the next visit. It keeps a note of its edits (`inserted`, `blanked`,
`rewritten`), so that a later builder can reuse what it derived from the sample where the
edits left it as it was. What depends on the sample alone (candidate cells, the
cells a formula sample's objectives read) is derived once and kept in the sample's `memo`
(`remember`). Appended items wait in a tail until `finish`: no builder reads their tokens
back, only their count, cell ids and tree slots.

Letters: T tokens, K integer columns, F format features.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any

import numpy as np

from fortap.encoding.arrays import (
    CELL,
    COL,
    IN_CELL_POS,
    INT_DTYPE,
    LEFT,
    NUMBERS,
    ROW,
    TOKEN,
    TOP,
    WIDTH,
    ExampleArrays,
)
from fortap.encoding.example import NULL_POS, Example
from fortap.encoding.formats import DEFAULT_FORMAT
from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.text.numbers import NOT_A_NUMBER

PIECE_COLUMNS = NUMBERS.stop  # a piece is (token id, 4 number features): `ints[:, :5]`
assert (TOKEN, NUMBERS.start, NUMBERS.stop) == (0, 1, IN_CELL_POS), "id, numbers, position"
ROWS_AHEAD = 1024  # more tokens than any inserted or appended run (templates are cut from these)


class Draft:
    """A mutable copy of `sample` that target builders edit (see module doc). Pieces of text
    travel as (k, 5) int arrays: token id and number features per piece."""

    def __init__(self, sample: ExampleArrays) -> None:
        self.sample = sample
        self.ints = sample.ints  # (T, K) shared with the sample until the first edit
        self.formats = sample.formats  # (T, F)
        self.starts = list(sample.starts)  # first token of every cell, appended ones included
        self.targets = dict(sample.targets)
        self.meta = dict(sample.meta)
        self.memo = sample.memo
        self.inserted: list[np.ndarray] = []  # (k, 5) pieces added at the end of cell 0, in order
        self.blanked: set[int] = set()  # cells replaced by [SEP] [EMP]
        self.rewritten: set[int] = set()  # cells whose tokens a builder changed in place
        self._owned = False
        self._tail: list[tuple[np.ndarray, int, int]] = []  # appended (content, slot, [SEP])
        self._tail_tokens = 0
        self._slots: set[int] | None = None  # tree slots the appended items use

    def __len__(self) -> int:
        return len(self.ints) + self._tail_tokens

    @property
    def facts(self) -> FormulaTargets | None:
        return self.targets.get(FORMULA_KEY)

    def span(self, cell: int) -> tuple[int, int]:
        """Token range `[start, end)` of `cell`."""
        end = self.starts[cell + 1] if cell + 1 < len(self.starts) else len(self)
        return self.starts[cell], end

    def content(self, cell: int) -> np.ndarray:
        """(k, 5) the pieces of a cell after its [SEP] (a cell of the sample, not appended)."""
        start, end = self.span(cell)
        return self.ints[start + 1 : end, :PIECE_COLUMNS].copy()

    def remember(self, key: str, derive: Callable[[ExampleArrays], Any]) -> Any:
        """`derive(sample)`, computed on the sample's first visit and kept in its memo. The
        memo serves one run's builders, whose configs do not change; a copy of a sample that
        differs from it needs a memo of its own."""
        if key not in self.memo:
            self.memo[key] = derive(self.sample)
        return self.memo[key]

    def writable(self, cells: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        """(ints, formats) that may be changed in place (copied from the sample once), in the
        tokens of `cells` only."""
        self.rewritten.update(cells)
        if not self._owned:
            self.ints, self.formats = self.ints.copy(), self.formats.copy()
            self._owned = True
        return self.ints, self.formats

    def insert_context(self, pieces: np.ndarray) -> None:
        """Add `pieces` (k, 5) at the end of cell 0 ([CLS] + context), outside the table like
        any context token; no cell is renumbered."""
        at = self.starts[1] if len(self.starts) > 1 else len(self.ints)
        rows = _template(-1, in_cell=False)[: len(pieces)].copy()  # (k, K)
        rows[:, :PIECE_COLUMNS] = pieces
        self.ints = np.concatenate([self.ints[:at], rows, self.ints[at:]])
        self.formats = np.concatenate(
            [self.formats[:at], _default_formats(len(rows), self.formats), self.formats[at:]]
        )
        self._owned = True
        self.starts[1:] = [s + len(rows) for s in self.starts[1:]]
        self.inserted.append(pieces)

    def blank(self, cells: Sequence[int], emp_id: int) -> None:
        """Replace each cell's tokens by `[SEP] [EMP]`; the [EMP] keeps the [SEP]'s position,
        tree coordinates, format and cell id."""
        if not cells:
            return
        self.blanked.update(cells)
        copies = np.ones(len(self.ints), dtype=np.intp)  # (T,) how often each row stays
        shifts = [0] * len(self.starts)  # tokens each cell loses
        for cell in cells:
            start, end = self.span(cell)
            if end - start < 2:
                raise ValueError(f"Draft.blank: cell {cell} has no token after its [SEP]")
            copies[start], copies[start + 1 : end] = 2, 0  # the [SEP], then its copy: the [EMP]
            shifts[cell] = end - start - 2
        ints = np.repeat(self.ints, copies, axis=0)  # (T', K)
        formats = np.repeat(self.formats, copies, axis=0)  # (T', F)
        removed = 0
        for cell, shift in enumerate(shifts):  # later cells move back by what came before
            self.starts[cell] -= removed
            removed += shift
        emps = [self.starts[cell] + 1 for cell in cells]
        ints[emps, TOKEN : IN_CELL_POS + 1] = [emp_id, *(NOT_A_NUMBER,) * 4, 1]  # id, numbers
        self.ints, self.formats, self._owned = ints, formats, True

    def append(self, content: np.ndarray, sep_id: int, tree_slot: int) -> int:
        """Append `[SEP] content…` (content (k, 5)) as a new out-of-table cell; returns its
        cell id."""
        self._tail.append((content, tree_slot, sep_id))
        self.starts.append(len(self))
        self._tail_tokens += 1 + len(content)
        self._used_slots().add(tree_slot)
        return len(self.starts) - 1

    def free_slot(self, rng, slots: int) -> int:
        """A tree slot in `0..slots-1` that no appended item uses yet (any when full).

        Two appended items on one slot see each other and nothing tells their [SEP]s apart
        (there are no 1-D positions), so their states would be identical; the reference drew
        slots independently and let that happen.
        """
        used = self._used_slots()
        free = [s for s in range(slots) if s not in used]
        return rng.choice(free or range(slots))

    def finish(self) -> ExampleArrays:
        """The edited example (the draft is spent)."""
        ints, formats = self.ints, self.formats
        if self._tail:
            ints = np.concatenate([ints, self._tail_rows()])
            formats = np.concatenate([formats, _default_formats(self._tail_tokens, formats)])
        coords = self.sample.cell_coords
        if len(self.starts) - 1 > len(coords):
            coords = [*coords, *[(-1, -1)] * (len(self.starts) - 1 - len(coords))]
        return ExampleArrays(ints, formats, self.starts, list(coords), self.targets, self.meta,
                             self.sample.inputs)  # fmt: skip

    def _tail_rows(self) -> np.ndarray:
        """(n, K) the rows of every appended item: `[SEP] content…` each, in order."""
        parts, blocks, sizes = [], [], []
        for content, slot, sep_id in self._tail:
            parts += [_sep_piece(sep_id), content]
            blocks.append(_template(slot, in_cell=True)[: 1 + len(content)])
            sizes.append(1 + len(content))
        rows = np.concatenate(blocks)  # (n, K)
        rows[:, :PIECE_COLUMNS] = np.concatenate(parts)
        rows[:, CELL] = np.repeat(range(len(self.starts) - len(sizes), len(self.starts)), sizes)
        return rows

    def _used_slots(self) -> set[int]:
        if self._slots is None:
            self._slots = set(self.remember("appended_slots", appended_slots))
        return self._slots


def appended_slots(sample: ExampleArrays) -> list[int]:
    """Tree slots of the out-of-table items already in `sample` (cells > 0 outside the table)."""
    ints = sample.ints
    outside = (ints[:, CELL] > 0) & (ints[:, ROW] == NULL_POS)  # (T,)
    return sorted(set(ints[outside, TOP.start].tolist()))


def pieces(tokens: Sequence[int], numbers: np.ndarray | None = None) -> np.ndarray:
    """(k, 5) pieces of `tokens`, with `numbers` (k, 4) or no number features."""
    out = np.full((len(tokens), PIECE_COLUMNS), NOT_A_NUMBER, dtype=INT_DTYPE)  # (k, 5)
    out[:, TOKEN] = tokens
    if numbers is not None:
        out[:, NUMBERS] = numbers
    return out


@cache
def _template(coord: int, in_cell: bool) -> np.ndarray:
    """(ROWS_AHEAD, K) rows of out-of-table tokens: row and column `NULL_POS`, every tree level
    `coord`, in-cell positions 0, 1, 2, ... (an appended item) or all 0 (context); the pieces
    and cell id are to be filled in."""
    rows = np.zeros((ROWS_AHEAD, WIDTH), dtype=INT_DTYPE)
    rows[:, ROW] = rows[:, COL] = NULL_POS
    rows[:, TOP] = rows[:, LEFT] = coord
    if in_cell:
        rows[:, IN_CELL_POS] = np.arange(ROWS_AHEAD)
    rows.flags.writeable = False
    return rows


@cache
def _sep_piece(sep_id: int) -> np.ndarray:
    """(1, 5) the piece of an appended item's [SEP]."""
    piece = pieces([sep_id])
    piece.flags.writeable = False
    return piece


_DEFAULT_FORMATS = {
    dtype: np.tile(np.asarray(DEFAULT_FORMAT, dtype), (ROWS_AHEAD, 1))
    for dtype in (np.float32, np.float64)
}  # (ROWS_AHEAD, F) each


def _default_formats(n: int, like: np.ndarray) -> np.ndarray:
    """(n, F) the serialiser's default format, in `like`'s dtype."""
    return _DEFAULT_FORMATS[like.dtype.type][:n]


def word_tokens(ints: np.ndarray, vocab) -> np.ndarray:
    """(T,) bool: the word pieces among `ints`' tokens, neither special (`vocab.no_target`)
    nor a number (numbers stay as they are, as in the reference, which never disturbs them).
    A number's magnitude is never `NOT_A_NUMBER` (`fortap.text.numbers`: it fills all four
    feature slots or none), so the first slot tells."""
    special = vocab.no_target_table[ints[:, TOKEN]]  # (T,)
    return ~special & (ints[:, NUMBERS.start] == NOT_A_NUMBER)


def in_table(sample: ExampleArrays) -> np.ndarray:
    """(C + 1,) bool per cell id: a table cell (not [CLS] + context, not an appended item)."""
    inside = sample.ints[sample.starts, ROW] != NULL_POS  # (C + 1,)
    inside[0] = False
    return inside


def formula_related(sample: ExampleArrays | Example) -> frozenset[int]:
    """Cell ids the ForTaP objectives read in a sample with formula facts: the formula cell,
    its row and column headers, the NRP candidate headers, the referenced cells and the NCP
    operands. TUTA's MLM and cell cloze leave them alone (the reference masks only cells that
    are not formula-related), so that no blank hides what NRP, NCP or formula MLM must see."""
    facts = sample.targets.get(FORMULA_KEY)
    if not facts:
        return frozenset()
    return frozenset(c for c in facts.needed_cells() if c)


def on_example(
    build: Callable[[Draft, Any, Any], None],
) -> Callable[[Example, Any, Any], Example]:
    """The Example-level door of a target builder: `targets(example, cfg, ctx)` returns a new
    Example with the builder's edits and targets; `example` is left alone."""

    def targets(example: Example, cfg: Any, ctx: Any) -> Example:
        draft = Draft(ExampleArrays.from_example(example))
        build(draft, cfg, ctx)
        return draft.finish().to_example()

    return targets
