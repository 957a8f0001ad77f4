"""Table -> `Example`: the token sequence `[CLS] context… [SEP] cell… [SEP] cell…` and its side inputs.

Each chosen cell becomes a *block*: its `[SEP]` then at most `max_cell_tokens - 1` tokens of its
text (`[EMP]` for an empty cell). Every token of a block carries a *position source*, the table
cell whose row, column, tree coordinates and format it takes; that is the block's own cell,
except for reference tokens of a formula shown in "tokens" mode, which take the referenced
cell's (see `fortap.encoding.formula_input`). `[CLS]` and context tokens lie outside the table:
row/column `NULL_POS`, all-null tree coordinates, `DEFAULT_FORMAT`.

A formula cell is shown in one of three input modes (the paper's 40/30/30 mix is the caller's
choice, through `formula_inputs`):

- "value": its cached value, like any other cell;
- "tag": `[SEP] [FORMULA]`;
- "tokens": `[SEP]` then its prefix formula tokens (ids 110..150), at most `max_formula_tokens`,
  which do not count against `max_cell_tokens`.

A serialisation never exceeds `max_seq_len`: when the blocks do not fit, whole cells are
dropped from the end of the row-major order (never a cell named in `keep` or `formula_inputs`),
and `meta["dropped_cells"]` lists them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from fortap.encoding.example import NULL_POS, TREE_LEVELS, Example
from fortap.encoding.formats import DEFAULT_FORMAT, format_vector, merge_spans
from fortap.encoding.formula_input import formula_pieces
from fortap.encoding.piece import RC, Piece
from fortap.errors import where
from fortap.formula.table_formulas import TableFormulas
from fortap.table.model import Table
from fortap.text.numbers import NAN_FEATURES
from fortap.text.tokenizer import Tokenizer

FormulaMode = Literal["tokens", "tag", "value"]
FORMULA_MODES: tuple[str, ...] = ("tokens", "tag", "value")
NULL_COORD = (-1,) * TREE_LEVELS


@dataclass(frozen=True)
class SerializeConfig:
    """How a table becomes one token sequence."""

    max_seq_len: int = 256  # tokens per Example, [CLS] and context included
    max_cell_tokens: int = 8  # tokens per cell including its [SEP] (the reference's 8)
    max_context_tokens: int = 63  # context tokens after [CLS] (the reference's cap)
    max_formula_tokens: int = 30  # formula tokens of a "tokens"-mode cell, [SEP] excluded
    formula_mode: FormulaMode = "value"  # input mode of formula cells not named in formula_inputs

    def __post_init__(self) -> None:
        if self.max_cell_tokens < 2:
            raise ValueError(
                f"SerializeConfig.max_cell_tokens must be >= 2 ([SEP] + one token), got {self.max_cell_tokens}"
            )
        if self.max_seq_len < 1 + self.max_cell_tokens:
            raise ValueError(
                f"SerializeConfig.max_seq_len must hold [CLS] and one full cell "
                f"(>= {1 + self.max_cell_tokens}), got {self.max_seq_len}"
            )
        if self.max_context_tokens < 0:
            raise ValueError(
                f"SerializeConfig.max_context_tokens must be >= 0, got {self.max_context_tokens}"
            )
        if self.max_formula_tokens < 1:
            raise ValueError(
                f"SerializeConfig.max_formula_tokens must be >= 1, got {self.max_formula_tokens}"
            )
        if self.formula_mode not in FORMULA_MODES:
            raise ValueError(
                f"SerializeConfig.formula_mode must be one of {FORMULA_MODES}, got {self.formula_mode!r}"
            )


def serialize(
    table: Table,
    tokenizer: Tokenizer,
    cfg: SerializeConfig | None = None,
    context: str | None = None,
    cells: Sequence[RC] | None = None,
    formula_inputs: Mapping[RC, str] | None = None,
    keep: Collection[RC] = (),
    formulas: TableFormulas | None = None,
) -> Example:
    """Serialise `cells` of `table` (all cells when None) in row-major order into an Example.

    `context` is text placed after [CLS] (a title, a note, a synthetic header context); None or
    blank for none. `formula_inputs` maps cells to an input mode ("tokens", "tag", "value");
    those cells are always serialised and never dropped, as are the cells in `keep`. Formula
    cells not named there use `cfg.formula_mode`. "tag" and "value" apply to any cell (a
    formula-prediction target is shown as a tag); "tokens" needs a formula. `formulas` are the
    table's parsed formulas (`fortap.formula.table_formulas`): a cell shown as tokens reads its
    `Formula` there instead of being parsed again.
    """
    cfg = cfg or SerializeConfig()
    formula_inputs = dict(formula_inputs or {})
    chosen = _chosen_cells(table, cells, formula_inputs)
    meta = _table_meta(table)
    blocks = [
        cell_block(table, tokenizer, cfg, rc, formula_inputs.get(rc), meta, formulas)
        for rc in chosen
    ]
    context_tokens = tokenizer.encode_cell(context)[: cfg.max_context_tokens] if context else []
    budget = cfg.max_seq_len - 1 - len(context_tokens)
    required = set(keep) | set(formula_inputs)
    kept = _fit(table, chosen, blocks, budget, required, meta)
    example = _emit(table, tokenizer, [(chosen[i], blocks[i]) for i in kept], context_tokens)
    shown = set(example.cell_coords)
    for key in ("cut_cells", "formula_fallbacks"):  # only about cells that made it in
        if key in meta:
            meta[key] = [entry for entry in meta[key] if (entry[0], entry[1]) in shown]
    example.meta.update(meta)
    example.meta["positions_clipped"] = any(max(r, c) >= NULL_POS for r, c in example.cell_coords)
    fell_back = {(r, c) for r, c, _ in meta.get("formula_fallbacks", [])}
    example.meta["input_modes"] = [
        [r, c, "tag" if (r, c) in fell_back else _mode_of(table, cfg, (r, c), formula_inputs)]
        for r, c in example.cell_coords
        if (r, c) in formula_inputs or table.cell(r, c).formula is not None
    ]
    return example


def cell_block(
    table: Table,
    tokenizer: Tokenizer,
    cfg: SerializeConfig,
    rc: RC,
    mode: str | None = None,
    meta: dict | None = None,
    formulas: TableFormulas | None = None,
) -> list[Piece]:
    """The block of cell `rc`: its [SEP] and its tokens under input `mode` (see module doc)."""
    cell = table.cell(*rc)
    mode = mode or _mode_of(table, cfg, rc, {})
    sep = Piece(tokenizer.sep_id, NAN_FEATURES, rc)
    if mode == "tag":
        return [sep, Piece(tokenizer.formula_id, NAN_FEATURES, rc)]
    if mode == "tokens":
        pieces, reason = formula_pieces(table, tokenizer, rc, cfg.max_formula_tokens, formulas)
        if pieces is not None:
            return [sep, *pieces]
        if meta is not None:  # unparsable or too long: show the tag, and say why
            meta.setdefault("formula_fallbacks", []).append([rc[0], rc[1], reason])
        return [sep, Piece(tokenizer.formula_id, NAN_FEATURES, rc)]
    assert mode == "value", mode
    tokens = tokenizer.encode_cell(cell.text) or [(tokenizer.emp_id, NAN_FEATURES)]
    if len(tokens) >= cfg.max_cell_tokens and meta is not None:
        meta.setdefault("cut_cells", []).append([rc[0], rc[1]])
    return [sep, *(Piece(i, n, rc) for i, n in tokens[: cfg.max_cell_tokens - 1])]


def _chosen_cells(
    table: Table, cells: Sequence[RC] | None, formula_inputs: dict[RC, str]
) -> list[RC]:
    """Distinct cells in row-major order, checked to lie in the table."""
    if cells is None:
        chosen = {(r, c) for r in range(table.n_rows) for c in range(table.n_cols)}
    else:
        chosen = {(int(r), int(c)) for r, c in cells}
    chosen |= set(formula_inputs)
    for r, c in chosen:
        if not (0 <= r < table.n_rows and 0 <= c < table.n_cols):
            raise ValueError(
                f"serialize: cell ({r}, {c}) lies outside the {table.n_rows}x{table.n_cols} "
                f"table ({where(table.book, table.sheet, table.region.a1)})"
            )
    for rc, mode in formula_inputs.items():
        if mode not in FORMULA_MODES:
            raise ValueError(
                f"serialize: formula input mode of {rc} must be one of {FORMULA_MODES}, got {mode!r}"
            )
        if mode == "tokens" and table.cell(*rc).formula is None:
            raise ValueError(
                f"serialize: cell {rc} has no formula to show as tokens "
                f"({where(table.book, table.sheet, table.region.a1)})"
            )
    return sorted(chosen)


def _fit(
    table: Table,
    chosen: list[RC],
    blocks: list[list[Piece]],
    budget: int,
    required: set[RC],
    meta: dict,
) -> list[int]:
    """Indices of the blocks kept within `budget` tokens: drop optional cells from the end."""
    total = sum(len(b) for b in blocks)
    dropped: list[int] = []
    for i in range(len(blocks) - 1, -1, -1):
        if total <= budget:
            break
        if chosen[i] not in required:
            total -= len(blocks[i])
            dropped.append(i)
    if total > budget:
        raise ValueError(
            f"serialize: the required cells need {total} tokens but only {budget} fit in "
            f"max_seq_len ({where(table.book, table.sheet, table.region.a1)})"
        )
    meta["dropped_cells"] = [list(chosen[i]) for i in sorted(dropped)]
    gone = set(dropped)
    return [i for i in range(len(blocks)) if i not in gone]


def _emit(
    table: Table, tokenizer: Tokenizer, blocks: list[tuple[RC, list[Piece]]], context: list
) -> Example:
    """Lay out [CLS], the context and the blocks as per-token lists."""
    ex = Example([], [], [], [], [], [], [], [], [], [])
    grid = table.coordinates
    spans = merge_spans(table.merged)
    formats: dict[RC, tuple[float, ...]] = {}
    for token_id, numbers in [(tokenizer.cls_id, NAN_FEATURES), *context]:
        ex.append_token(
            token_id, numbers, 0, NULL_POS, NULL_POS, NULL_COORD, NULL_COORD, DEFAULT_FORMAT, 0
        )
    for k, (rc, block) in enumerate(blocks, start=1):
        ex.cell_coords.append(rc)
        for pos, (token_id, numbers, (r, c)) in enumerate(block):
            if (r, c) not in formats:
                formats[r, c] = format_vector(table.cell(r, c), spans.get((r, c), (1, 1)))
            ex.append_token(
                token_id, numbers, pos, min(r, NULL_POS - 1), min(c, NULL_POS - 1),
                tuple(grid.top[r][c]), tuple(grid.left[r][c]), formats[r, c], k,
            )  # fmt: skip
    return ex


def _mode_of(table: Table, cfg: SerializeConfig, rc: RC, formula_inputs: dict[RC, str]) -> str:
    if rc in formula_inputs:
        return formula_inputs[rc]
    return cfg.formula_mode if table.cell(*rc).formula is not None else "value"


def _table_meta(table: Table) -> dict:
    return {
        "book": table.book,
        "sheet": table.sheet,
        "region": table.region.a1,
    }
