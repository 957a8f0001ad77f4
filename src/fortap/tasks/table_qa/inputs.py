"""A question and its table -> one `Example` (the question as TUTA's text segment), with targets.

Most HiTab tables do not fit one sequence, so cells are chosen by their relevance to the
question (`choose_cells`): data cells in order of the words their row's left path and their
column's top path share with the question (`headers.overlaps`), each brought in with its whole
header path; first the top-header cells (when they take at most half of the room), and the
other header cells fill what room is left. `serialize` lays them out row-major after
`[CLS] question`. The `named` cut (`CUTS`; not the default: on dev it kept the gold cells of 13
more questions but answered as many right) orders the data cells also by what the decoding's
`path_match` measures: path words the question meets by prefix count as shared, and among
equals a cell whose header leaves the question names comes first.

Targets (key `table_qa`): the operation's index in `OPS` (-1 outside the set) and the indices
of the target cells among the serialised ones (only for a verified target whose cells all
survived the cut). The cells' match features with the question (`match.cell_features`) travel
in the same record, since a `Batch` has no other place for a task's own per-cell inputs. `meta["gold_shown"]` says whether they survived (None without a verified
target): the ceiling of a model that can only pick shown cells; `meta["question"]` keeps the
question for decoding (`decoding.decode`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from fortap.encoding.collate import collate
from fortap.encoding.example import Batch, Example
from fortap.encoding.piece import RC
from fortap.encoding.serialize import SerializeConfig, cell_block, serialize
from fortap.tasks.table_qa.headers import HeaderPaths, overlaps
from fortap.tasks.table_qa.match import cell_features
from fortap.tasks.table_qa.operations import OPS
from fortap.tasks.table_qa.path_match import path_match
from fortap.tasks.table_qa.targets import Target
from fortap.text.tokenizer import Tokenizer

QA_KEY = "table_qa"
CUTS = ("overlap", "named")  # how data cells are ordered for the cut (module doc)
CUT = "overlap"


@dataclass
class TableCost:
    """Tokens each cell's block takes (computed once per table)."""

    paths: HeaderPaths
    cost: dict[RC, int]

    @classmethod
    def of(cls, paths: HeaderPaths, tokenizer: Tokenizer, cfg: SerializeConfig) -> TableCost:
        table = paths.table
        cost = {(r, c): len(cell_block(table, tokenizer, cfg, (r, c)))
                for r in range(table.n_rows) for c in range(table.n_cols)
                if not table.cell(r, c).is_empty}  # fmt: skip
        return cls(paths, cost)


def choose_cells(tc: TableCost, question: str, budget: int, cut: str = CUT) -> list[RC]:
    """Cells for one question within `budget` tokens (see module doc), data cells ordered by
    `cut` (`CUTS`)."""
    if cut not in CUTS:
        raise ValueError(f"unknown input cut {cut!r} (cuts: {', '.join(CUTS)})")
    paths, cost = tc.paths, tc.cost
    table = paths.table
    chosen: dict[RC, None] = {}
    used = 0

    def add(cells) -> bool:
        nonlocal used
        new = [rc for rc in cells if rc in cost and rc not in chosen]
        need = sum(cost[rc] for rc in new)
        if used + need > budget:
            return False
        chosen.update(dict.fromkeys(new))
        used += need
        return True

    top = [(r, c) for r in range(paths.header_rows) for c in range(table.n_cols)]
    if sum(cost.get(rc, 0) for rc in top) <= budget // 2:
        add(top)
    rows, cols = overlaps(paths, question)
    data = [(r, c) for r in rows for c in cols if (r, c) in cost]
    if cut == "named":
        named = dict(zip(data, path_match(paths, question, data), strict=True))
        data.sort(key=lambda rc: (-(rows[rc[0]] + cols[rc[1]] + named[rc][1]), named[rc][0],
                                  -min(rows[rc[0]], cols[rc[1]]), rc))  # fmt: skip
    else:
        data.sort(key=lambda rc: (-(rows[rc[0]] + cols[rc[1]]), -min(rows[rc[0]], cols[rc[1]]), rc))
    for rc in data:
        if used >= budget:
            break
        add([*paths.header_path(rc), rc])
    for rc in sorted(cost):
        if paths.is_header(rc):
            add([rc])
    return sorted(chosen)


def qa_example(
    tc: TableCost, question: str, tokenizer: Tokenizer, cfg: SerializeConfig,
    target: Target | None = None, cut: str = CUT,
) -> Example:  # fmt: skip
    """The model input for one question (with its targets when `target` is given)."""
    context_len = len(tokenizer.encode_cell(question)[: cfg.max_context_tokens])
    budget = cfg.max_seq_len - 1 - context_len
    cells = choose_cells(tc, question, budget, cut)
    example = serialize(tc.paths.table, tokenizer, cfg, context=question, cells=cells or [(0, 0)])
    shown = {rc: k for k, rc in enumerate(example.cell_coords)}
    op = OPS.index(target.op) if target is not None and target.op is not None else -1
    picked: list[int] = []
    gold_shown = None
    if target is not None and target.verified:
        gold_shown = all(rc in shown for rc in target.cells)
        if gold_shown:
            picked = [shown[rc] for rc in target.cells]
    features = cell_features(tc.paths, question, example.cell_coords)
    example.targets[QA_KEY] = {"op": op, "cells": picked}
    example.inputs[QA_KEY] = features
    example.meta["gold_shown"] = gold_shown
    example.meta["question"] = question  # decoding matches it with the header paths
    return example


def collate_targets(values: list, batch: Batch) -> dict[str, torch.Tensor]:
    """op (B,) long, -1 where unknown; cells (B, C) float 0/1; has_cells (B,) bool. (The
    question-match features are inputs: `batch.inputs[QA_KEY]`, (B, C, F).)"""
    B, C = batch.cell_mask.shape
    op = torch.full((B,), -1, dtype=torch.long)
    cells = torch.zeros(B, C)
    has = torch.zeros(B, dtype=torch.bool)
    for b, value in enumerate(values):
        if value is None:
            continue
        op[b] = value["op"]
        if value["cells"]:
            cells[b, value["cells"]] = 1.0
            has[b] = True
    return {"op": op, "cells": cells, "has_cells": has}


def qa_batch(examples: list[Example]) -> Batch:
    return collate(examples, target_collators={QA_KEY: collate_targets})
