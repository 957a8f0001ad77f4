"""From one question's head scores to its operation and cells (`decode`), by a `DecodeConfig`.

The operation is the op head's argmax. The cells follow from the cell logits, by operation
(`pick_cells`):

- `none`: the best cell alone, or a list with the cells of the same kind (header or data) on
  its row or column whose probability passes `list_threshold` (a list answer is rare: 5 % of
  dev; with the 0.5 threshold a value question got three cells on average);
- `opposite`: the best cell; the two-cell operations: the best two;
- the aggregations: the cells above `threshold`, at least two (three for a part ratio).

Two inference-time levers, off in `DecodeConfig()` (the decoding the model was fine-tuned and
first scored with), chosen on HiTab dev (`bench/table_qa_decoding.py`):

- `unmatched_weight`, `prefix_weight`: each data cell's logit less `unmatched_weight` per leaf of
  its header paths the question does not name, plus `prefix_weight` per path word the question
  writes longer or shorter (`path_match`), so a cell the question names outranks a sibling the
  encoder confuses it with (the head's own match features count shared words only);
- `op_shapes`: the cells an operation can run on, in the shape it needs (`shaped`): an
  arithmetic or comparing operation only over data cells holding numbers; a two-cell one
  over the best cell and the best other cell on its row or column; an aggregation over a run
  of cells on that line; a superlative over the best cell's siblings on it (`siblings`).

A model folder stores the settings it decodes with (`checkpoint`); the shipped model's were
chosen there: dev 0.418 -> 0.461 (`bench/table_qa_decoding.py`, RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from fortap.encoding.example import Example
from fortap.encoding.piece import RC
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.operations import (
    ONE_CELL_OPS,
    OPS,
    TWO_CELL_OPS,
    Execution,
    execute,
    number,
)
from fortap.tasks.table_qa.path_match import path_match

MAX_CELLS = 12  # most cells one answer uses
SUPERLATIVES = frozenset({"argmax", "argmin", "max", "min"})


@dataclass(frozen=True)
class DecodeConfig:
    threshold: float = 0.5  # an aggregation's cells: probability above this
    list_threshold: float = 0.9  # a `none` answer's further cells: probability above this
    unmatched_weight: float = 0.0  # logit off per header-path leaf the question does not name
    prefix_weight: float = 0.0  # logit added per path word the question meets by prefix only
    op_shapes: bool = False  # choose the cells in the shape the operation needs (module doc)

    def __post_init__(self) -> None:
        for name in ("threshold", "list_threshold"):
            if not 0.0 < getattr(self, name) < 1.0:
                raise ValueError(
                    f"DecodeConfig.{name} must lie in (0, 1), got {getattr(self, name)}"
                )
        for name in ("unmatched_weight", "prefix_weight"):
            if getattr(self, name) < 0:
                raise ValueError(f"DecodeConfig.{name} must be >= 0, got {getattr(self, name)}")

    @classmethod
    def of(cls, fields: dict) -> DecodeConfig:
        """From a model folder's `decoding` record; unknown names refused by name."""
        unknown = set(fields) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown table-QA decoding settings {sorted(unknown)}")
        return cls(**fields)


@dataclass(frozen=True)
class QAScores:
    """One question's raw head outputs: operation logits (K,) and shown-cell logits (C,)."""

    ops: torch.Tensor  # (K,)
    cells: torch.Tensor  # (C,)


@dataclass(frozen=True)
class Prediction:
    op: str
    cells: tuple[RC, ...]
    run: Execution | None


def decode(scores: QAScores, example: Example, paths: HeaderPaths, cfg: DecodeConfig) -> Prediction:
    """The operation, cells and execution for one question (see module doc)."""
    op = OPS[int(scores.ops.argmax())]
    coords = example.cell_coords
    logits = scores.cells[: len(coords)].float()  # (C,)
    if cfg.unmatched_weight or cfg.prefix_weight:
        question = example.meta.get("question")
        if question is None:
            raise ValueError("decode: the example keeps no question (inputs.qa_example sets it)")
        match = torch.tensor(path_match(paths, question, coords)).reshape(-1, 2)  # (C, 2)
        shift = cfg.prefix_weight * match[:, 1] - cfg.unmatched_weight * match[:, 0]  # (C,)
        logits = logits + shift  # (C,)
    probs = torch.sigmoid(logits).tolist()
    header = [paths.is_header(rc) for rc in coords]
    if cfg.op_shapes and op != "none":
        picked = shaped(probs, op, coords, paths, cfg)
    else:
        picked = pick_cells(probs, op, coords, header, cfg.threshold, cfg.list_threshold)
    chosen = tuple(coords[i] for i in picked)
    return Prediction(op, chosen, execute(op, chosen, paths))


def pick_cells(
    probs: list[float], op: str, coords: Sequence[RC], header: Sequence[bool],
    threshold: float = 0.5, list_threshold: float = 0.9,
) -> list[int]:  # fmt: skip
    """Indices of the cells `op` runs on, given each cell's probability, coordinates and
    whether it is a header cell (see module doc)."""
    order = sorted(range(len(probs)), key=lambda k: -probs[k])
    if op == "none":
        best = order[0]
        (r, c), kind = coords[best], header[best]
        return [best] + [k for k in order[1:MAX_CELLS] if probs[k] > list_threshold
                         and header[k] == kind and (coords[k][0] == r or coords[k][1] == c)]  # fmt: skip
    if op in ONE_CELL_OPS:
        return order[:1]
    if op in TWO_CELL_OPS:
        return order[:2]
    above = [k for k in order if probs[k] > threshold][:MAX_CELLS]
    least = 3 if op == "part_ratio" else 2
    return above if len(above) >= least else order[:least]


def siblings(best: int, line: list[int], coords: Sequence[RC], paths: HeaderPaths) -> list[int]:
    """The cells of `line` (the best cell's row or column) whose header along the line is a
    sibling of the best cell's (same parent, same depth): a superlative's candidates, as its
    training target takes them (`targets`)."""
    along_row = coords[line[0]][0] == coords[best][0]  # the candidates differ by column
    lines, index = (paths.top, 1) if along_row else (paths.left, 0)
    own = lines.get(coords[best][index], ())
    if not own:
        return line
    prefix = own[:-1]
    return [k for k in line
            if len(p := lines.get(coords[k][index], ())) == len(own) and p[:-1] == prefix]  # fmt: skip


def shaped(
    probs: list[float], op: str, coords: Sequence[RC], paths: HeaderPaths, cfg: DecodeConfig
) -> list[int]:
    """`pick_cells` for an operation other than `none`, over the data cells holding numbers,
    in the operation's shape (module doc); the plain rule where too few cells hold numbers."""
    numbered = [k for k in range(len(coords))
                if not paths.is_header(coords[k]) and number(paths, coords[k]) is not None]  # fmt: skip
    least = 3 if op == "part_ratio" else 1 if op in ONE_CELL_OPS else 2
    if len(numbered) < least:
        header = [paths.is_header(rc) for rc in coords]
        return pick_cells(probs, op, coords, header, cfg.threshold, cfg.list_threshold)
    order = sorted(numbered, key=lambda k: -probs[k])
    best = order[0]
    if op in ONE_CELL_OPS:
        return [best]
    (r, c) = coords[best]
    row = [k for k in order[1:] if coords[k][0] == r]
    col = [k for k in order[1:] if coords[k][1] == c]
    if op in TWO_CELL_OPS:
        line = [k for k in order[1:] if k in row or k in col]
        return [best, (line or order[1:])[0]]
    # a run: along the line through the best cell and the best other cell on its row or column
    line = row if row and (not col or probs[row[0]] >= probs[col[0]]) else col
    if op in SUPERLATIVES and line:
        return [best, *siblings(best, line, coords, paths)]
    above = [k for k in line if probs[k] > cfg.threshold][: MAX_CELLS - 1]
    rest = [k for k in line if k not in above]
    return [best, *above, *rest][: max(least, 1 + len(above))]
