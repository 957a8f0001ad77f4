"""One formula cell -> one pretraining `Example`, with the formula facts the objectives read.

Input (the paper's): the table's non-empty header cells and every cell on the formula cell's
row and column (`fortap.encoding.selection.select_cells`). The formula cell is shown as its
formula tokens (40 %), the `[FORMULA]` tag (30 %) or its value (30 %), drawn from an rng
seeded by (seed, workbook key, sheet, cell) alone, so a sample never depends on which task or
worker built it. The cells the objectives need (headers, referenced cells, NCP operands) are
never dropped to fit the length; when they alone do not fit, there is no sample.

`example.targets[FORMULA_KEY]` holds the facts as a `FormulaTargets`
(`fortap.encoding.formula_targets`): cell ids of the serialised example, typed fields the
objectives read. `meta` keeps the formula text and its sheet cell (A1) for reports.

A table without any kept formula can still give one *table sample* (no formula facts) for
TUTA's objectives: a window of rows under its headers, chosen by the same kind of seeded rng.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from fortap.corpus.facts import FormulaFacts
from fortap.corpus.snippets import (
    CONTEXT_LEAD,
    SNIPPETS,
    TableContextConfig,
    split_context,
)
from fortap.encoding.example import Example
from fortap.encoding.formula_input import referenced_cell
from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.encoding.piece import RC
from fortap.encoding.selection import chunk_rows, select_cells
from fortap.encoding.serialize import SerializeConfig, serialize
from fortap.formula.table_formulas import TableFormulas
from fortap.formula.tokens import FORMULA_VOCAB_INDEX
from fortap.sheet.model import a1
from fortap.table.model import Table
from fortap.text.tokenizer import Tokenizer

TOKEN_KINDS = {"OP": "op", "FUNC": "op", "CELL": "ref", "CONST": "other", "SPECIAL": "other"}


@dataclass(frozen=True)
class SampleConfig:
    """How formula cells are shown and which tables give samples without formulas."""

    tokens_rate: float = 0.4  # chance the formula cell shows its formula tokens
    tag_rate: float = 0.3  # chance it shows the [FORMULA] tag (else its value)
    table_samples: bool = True  # a table without kept formulas gives one TUTA-only sample

    def __post_init__(self) -> None:
        for name in ("tokens_rate", "tag_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(
                    f"SampleConfig.{name} must be in [0, 1], got {getattr(self, name)}"
                )
        if self.tokens_rate + self.tag_rate > 1.0:
            raise ValueError("SampleConfig.tokens_rate + tag_rate must not exceed 1")


def sample_rng(seed: int, book_key: str, sheet: str, rc: RC) -> random.Random:
    """The rng of one sample: a function of (seed, workbook key, sheet, sheet cell) only."""
    return random.Random(f"{seed}|{book_key}|{sheet}|{rc[0]}|{rc[1]}")


def draw_mode(rng: random.Random, cfg: SampleConfig) -> str:
    draw = rng.random()
    if draw < cfg.tokens_rate:
        return "tokens"
    return "tag" if draw < cfg.tokens_rate + cfg.tag_rate else "value"


def formula_sample(
    table: Table,
    facts: FormulaFacts,
    tokenizer: Tokenizer,
    serialize_cfg: SerializeConfig,
    mode: str,
    neighbours: Sequence[FormulaFacts] = (),
    formulas: TableFormulas | None = None,
) -> Example | None:
    """The sample of one kept formula shown in `mode`; None when its needed cells do not fit.
    `formulas` are the table's parsed formulas: cells shown as tokens are not parsed again."""
    rc = facts.cell
    cells = select_cells(table, rc)
    present = set(cells)
    needed = [facts.formula_header, facts.row_header, facts.col_header, *facts.positives,
              *facts.referenced, *(c for _, group in facts.ncp for c in group)]  # fmt: skip
    keep = {c for c in needed if c is not None and c in present}
    try:
        example = serialize(table, tokenizer, serialize_cfg, cells=cells,
                            formula_inputs={rc: mode}, keep=keep,
                            formulas=formulas or _own_formula(facts))  # fmt: skip
    except ValueError:
        return None
    ids = {tuple(at): k for k, at in enumerate(example.cell_coords, start=1)}
    shown = next(m for r, c, m in example.meta["input_modes"] if (r, c) == rc)
    example.targets[FORMULA_KEY] = formula_targets(table, facts, ids, shown, neighbours)
    sheet_rc = (table.region.top + rc[0], table.region.left + rc[1])
    example.meta["formula"] = table.cell(*rc).formula
    example.meta["formula_cell"] = a1(*sheet_rc)
    return example


def _own_formula(facts: FormulaFacts) -> TableFormulas:
    """The one parsed formula a sample shows as tokens, when the caller gave no table formulas."""
    return {facts.cell: facts.formula}


def formula_targets(
    table: Table,
    facts: FormulaFacts,
    ids: dict[RC, int],
    mode: str,
    neighbours: Sequence[FormulaFacts] = (),
) -> FormulaTargets:
    """The facts as cell ids of the serialised example (`FormulaTargets`)."""

    def id_of(rc: RC | None) -> int:
        return ids.get(rc, 0) if rc is not None else 0

    def present(cells) -> tuple[int, ...]:
        return tuple(ids[c] for c in cells if c in ids)

    tokens = []
    if mode == "tokens":
        for offset, token in enumerate(facts.formula.tokens, start=1):
            at = referenced_cell(table, token, facts.cell) if token.kind == "CELL" else None
            tokens.append(
                (offset, TOKEN_KINDS[token.kind], FORMULA_VOCAB_INDEX[token.vocab], id_of(at))
            )
    ncp = [
        (label, tuple(ids[c] for c in group))
        for label, group in facts.ncp
        if all(c in ids for c in group)
    ]
    seen = set(ncp)
    more = []
    for other in neighbours:
        if other.cell == facts.cell or (
            mode == "tokens" and other.formula.r1c1 == facts.formula.r1c1
        ):
            continue  # itself, or a copy of the formula whose shown tokens spell its operator
        for label, group in other.ncp:
            if all(c in ids for c in group):
                key = (label, tuple(ids[c] for c in group))
                if key not in seen:
                    seen.add(key)
                    more.append(key)
    header = id_of(facts.formula_header)
    return FormulaTargets(
        cell=ids[facts.cell],
        mode=mode,
        tokens=tuple(tokens),
        side=facts.side,
        formula_header=header,
        positives=present(facts.positives) if header else (),
        negatives=present(facts.negatives) if header else (),
        row_header=id_of(facts.row_header),
        col_header=id_of(facts.col_header),
        referenced=present(facts.referenced),
        ncp=tuple(ncp),
        ncp_neighbours=tuple(more),
    )


def table_sample(
    table: Table, tokenizer: Tokenizer, serialize_cfg: SerializeConfig, rng: random.Random
) -> Example | None:
    """One window of rows under the table's headers, formulas shown as values; no facts. The
    table's context is cut into snippets as table-context retrieval cuts it (its default
    `TableContextConfig`): one is shown after [CLS] (`meta[CONTEXT_LEAD]`), the others are the
    choices to find (`meta[SNIPPETS]`)."""
    lead, rest = split_context(table.context, TableContextConfig(), rng)
    cfg = replace(serialize_cfg, formula_mode="value")
    try:
        windows = chunk_rows(table, tokenizer, cfg, context=lead)
        example = serialize(table, tokenizer, cfg, context=lead, cells=rng.choice(windows))
    except ValueError:
        return None
    example.meta[CONTEXT_LEAD], example.meta[SNIPPETS] = lead, rest
    return example if example.cell_coords else None
