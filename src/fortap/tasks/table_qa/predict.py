"""From the heads' scores to an executed answer (`predict`).

The operation is the op head's argmax; the cells are the best cell's and, by operation:

- `none`: the best cell alone, or a list with the cells of the same kind (header or data) on
  its row or column whose probability passes `list_threshold` (a list answer is rare: 5 % of
  dev; with the 0.5 threshold a value question got three cells on average);
- `opposite`: the best cell; the two-cell operations: the best two;
- the aggregations: the cells above `threshold`, at least two (three for a part ratio).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from fortap.encoding.example import Example
from fortap.encoding.piece import RC
from fortap.model.precision import device_of
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.inputs import qa_batch
from fortap.tasks.table_qa.operations import ONE_CELL_OPS, OPS, TWO_CELL_OPS, Execution, execute

MAX_CELLS = 12  # most cells one answer uses


@dataclass(frozen=True)
class Prediction:
    op: str
    cells: tuple[RC, ...]
    run: Execution | None


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


@torch.no_grad()
def predict(
    model, examples: Sequence[Example], paths: Sequence[HeaderPaths], batch_size: int = 16
) -> list[Prediction]:
    """Each example's operation, cells and execution (`paths`: each example's table)."""
    model.eval()
    device = device_of(model)
    found: list[Prediction] = []
    for start in range(0, len(examples), batch_size):
        part = list(examples[start : start + batch_size])
        cells, ops = model.scores(qa_batch(part).to(device))  # (B, C), (B, K)
        probs = torch.sigmoid(cells)  # (B, C)
        for b, ex in enumerate(part):
            op = OPS[int(ops[b].argmax())]
            coords, table = ex.cell_coords, paths[start + b]
            header = [table.is_header(rc) for rc in coords]
            picked = pick_cells(probs[b, : len(coords)].tolist(), op, coords, header)
            chosen = tuple(coords[i] for i in picked)
            found.append(Prediction(op, chosen, execute(op, chosen, table)))
    return found
