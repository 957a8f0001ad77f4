"""Edits on a serialised `Example` that objectives use to build their inputs.

An objective never re-serialises a table: it blanks a cell in place (`blank_cell`) or appends
an out-of-table item after the last cell (`append_item`), and every per-token list moves
together. Appended items sit outside the table: row/column `NULL_POS`, the serialiser's
default format, and a constant tree coordinate `(r, r, r, r)` that puts them far from every table
cell in tree distance (reference note §1.3), so they see little more than [CLS], the context
and themselves.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from fortap.encoding.example import NULL_POS, TOKEN_FIELDS, TREE_LEVELS, Example
from fortap.encoding.formats import DEFAULT_FORMAT
from fortap.encoding.formula_targets import FORMULA_KEY
from fortap.text.numbers import NAN_FEATURES, Features


def clone(example: Example) -> Example:
    """A copy whose lists and targets can be changed without touching `example`."""
    lists = {name: list(getattr(example, name)) for name in TOKEN_FIELDS}
    return replace(
        example,
        **lists,
        cell_coords=list(example.cell_coords),
        targets=copy.deepcopy(example.targets),
        meta=dict(example.meta),
    )


def cell_spans(example: Example) -> dict[int, tuple[int, int]]:
    """Token range `[start, end)` of every cell id (cells are contiguous; cell 0 is [CLS]+context)."""
    spans: dict[int, tuple[int, int]] = {}
    for pos, cell in enumerate(example.cell_ids):
        start, _ = spans.get(cell, (pos, pos))
        spans[cell] = (start, pos + 1)
    return spans


def in_table(example: Example, cell: int, spans: dict[int, tuple[int, int]]) -> bool:
    """Whether serialised cell `cell` is a table cell (not [CLS]/context, not an appended item)."""
    return cell > 0 and example.rows[spans[cell][0]] != NULL_POS


def formula_related(example: Example) -> frozenset[int]:
    """Cell ids the ForTaP objectives read in a sample with formula facts: the formula cell,
    its row and column headers, the NRP candidate headers, the referenced cells and the NCP
    operands. TUTA's MLM and cell cloze leave them alone (the reference masks only cells that
    are not formula-related), so that no blank hides what NRP, NCP or formula MLM must see."""
    facts = example.targets.get(FORMULA_KEY)
    if not facts:
        return frozenset()
    return frozenset(c for c in facts.needed_cells() if c)


def cell_content(
    example: Example, cell: int, spans: dict[int, tuple[int, int]]
) -> list[tuple[int, Features]]:
    """The (id, number features) of a cell's tokens after its [SEP]."""
    start, end = spans[cell]
    return [(example.token_ids[p], tuple(example.numbers[p])) for p in range(start + 1, end)]


def word_positions(
    example: Example, cell: int, spans: dict[int, tuple[int, int]], no_target: frozenset[int]
) -> list[int]:
    """Token positions of a cell's word pieces: not special, not a number (numbers stay as is,
    as in the reference, which never disturbs numeric tokens)."""
    start, end = spans[cell]
    return [
        p
        for p in range(start, end)
        if example.token_ids[p] not in no_target and tuple(example.numbers[p]) == NAN_FEATURES
    ]


def blank_cell(example: Example, cell: int, emp_id: int) -> Example:
    """Replace a cell's tokens by `[SEP] [EMP]`, keeping the [SEP]'s position and format."""
    spans = cell_spans(example)
    start, end = spans[cell]
    out = clone(example)
    for name in TOKEN_FIELDS:
        values = getattr(out, name)
        keep = values[start]
        if name == "token_ids":
            new = emp_id
        elif name == "numbers":
            new = NAN_FEATURES
        elif name == "in_cell_pos":
            new = 1
        else:
            new = keep
        values[start + 1 : end] = [new]
    return out


def free_slot(example: Example, rng, slots: int) -> int:
    """A tree slot in `0..slots-1` that no appended item of `example` uses yet (any when full).

    Two appended items on one slot see each other and nothing tells their [SEP]s apart (there
    are no 1-D positions), so their states would be identical; the reference drew slots
    independently and let that happen.
    """
    used = {
        example.top_coords[p][0]
        for p, cell in enumerate(example.cell_ids)
        if cell > 0 and example.rows[p] == NULL_POS
    }
    free = [s for s in range(slots) if s not in used]
    return rng.choice(free or range(slots))


def append_item(
    example: Example, content: list[tuple[int, Features]], sep_id: int, tree_slot: int
) -> tuple[Example, int]:
    """Append `[SEP] content…` as a new out-of-table cell; returns the new Example and cell id."""
    out = clone(example)
    cell = max(out.cell_ids) + 1
    coord = (tree_slot,) * TREE_LEVELS
    items = [(sep_id, NAN_FEATURES), *content]
    for pos, (token, numbers) in enumerate(items):
        out.append_token(
            token, numbers, pos, NULL_POS, NULL_POS, coord, coord, DEFAULT_FORMAT, cell
        )
    out.cell_coords.append((-1, -1))
    return out, cell
