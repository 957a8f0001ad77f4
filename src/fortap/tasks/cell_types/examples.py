"""Tables -> windows -> `Example`s with cell-type targets, and the rule that scores each cell once.

A sheet is one `Table` over its whole used range. `encoding.selection.chunk_table` cuts it into
windows (column bands that repeat the left-header columns, each cut into row windows that
repeat the top-header rows), empty cells left out; each window is serialised alone. Every
window's target (`TARGET`) holds, per serialised cell, its class index (`NO_LABEL` for a cell
without a label) and the head's extra features (`EXTRA_NAMES`), which come from the cell's
`CellStyle` and text, so a user's sheet gets them from fortap's reader as SAUS gets them from
its mapping (`saus.saus_style`).

Training uses every labelled cell of every window (a repeated header cell is trained once per
window that repeats it). Scoring uses each cell once, from its *owner*: the first window, in
`chunk_table`'s order, that shows it (`owners`). A header cell is thus scored in the first row
window of its first column band, a data cell in the one window that holds its row within its
band. A labelled cell that no window shows (`serialize` dropped it from an over-long window)
is scored as predicted `data`, the majority class, and counted (`Scored.unshown`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from fortap.encoding.collate import collate
from fortap.encoding.example import Batch, Example
from fortap.encoding.piece import RC
from fortap.encoding.selection import chunk_table
from fortap.encoding.serialize import SerializeConfig, serialize
from fortap.sheet.model import Cell
from fortap.table.model import Table
from fortap.tasks.cell_types.labels import CLASS_INDEX, NO_LABEL
from fortap.text.tokenizer import Tokenizer

TARGET = "cell_types"  # the targets' key, the logs' name (`loss/cell_types`)
EXTRA_NAMES = ("indent", "align_general", "align_center", "align_other", "leading_spaces")
SHEET_KEY = "sheet_key"  # meta: which sheet a window came from
FALLBACK = CLASS_INDEX["data"]  # the prediction of a labelled cell no window shows


def extra_features(cell: Cell) -> tuple[float, ...]:
    """The head's features beside the encoder's cell state (`EXTRA_NAMES`), each in [0, 1]:
    indent level / 4, the horizontal alignment (general, centred, anything else), and the
    text's leading spaces / 8, both clipped."""
    align = cell.style.h_align
    centred = align in ("center", "centerContinuous")
    text = cell.text
    spaces = len(text) - len(text.lstrip(" ")) if cell.kind == "text" else 0
    return (min(cell.style.indent, 4) / 4, float(align is None), float(centred),
            float(align is not None and not centred), min(spaces, 8) / 8)  # fmt: skip


def table_windows(
    table: Table,
    tokenizer: Tokenizer,
    cfg: SerializeConfig,
    labels: Sequence[Sequence[int]] | None = None,
    key: str = "",
) -> list[Example]:
    """The windows of `table` as Examples; `labels` (rows x cols class indices) fills the
    targets (all `NO_LABEL` without). `key` names the sheet in each window's meta."""
    out = []
    for cells in chunk_table(table, tokenizer, cfg, skip_empty=True):
        ex = serialize(table, tokenizer, cfg, cells=cells)
        coords = ex.cell_coords
        ex.targets[TARGET] = {
            "labels": [labels[r][c] if labels is not None else NO_LABEL for r, c in coords],
        }
        ex.inputs[TARGET] = [extra_features(table.cell(r, c)) for r, c in coords]
        ex.meta[SHEET_KEY] = key or f"{table.book}!{table.sheet}"
        out.append(ex)
    return out


def owners(windows: Sequence[Example]) -> dict[RC, tuple[int, int]]:
    """Each shown cell -> (window index, cell index) of its owner, the first window showing it."""
    out: dict[RC, tuple[int, int]] = {}
    for w, ex in enumerate(windows):
        for k, rc in enumerate(ex.cell_coords):
            out.setdefault((int(rc[0]), int(rc[1])), (w, k))
    return out


@dataclass
class Scored:
    """Gold and predicted class of every labelled cell of one sheet, each cell once."""

    cells: list[RC]
    gold: list[int]
    predicted: list[int]
    unshown: int  # labelled cells no window showed (scored as FALLBACK)


def score_sheet(
    labels: Sequence[Sequence[int]], windows: Sequence[Example], predicted: Sequence[Sequence[int]]
) -> Scored:
    """One prediction per labelled cell: its owner's (`predicted[w][k]` is window w's class for
    its k-th cell); a cell without a label is never scored."""
    own = owners(windows)
    out = Scored([], [], [], 0)
    for r, row in enumerate(labels):
        for c, gold in enumerate(row):
            if gold == NO_LABEL:
                continue
            at = own.get((r, c))
            out.unshown += at is None
            out.cells.append((r, c))
            out.gold.append(gold)
            out.predicted.append(FALLBACK if at is None else predicted[at[0]][at[1]])
    return out


def collate_cell_types(values: list, batch: Batch) -> dict[str, torch.Tensor]:
    """Pad the windows' targets to the batch: labels (B, C) with NO_LABEL. (Their extra
    features are inputs: `batch.inputs[TARGET]`, (B, C, E).)"""
    n, c = batch.cell_mask.shape
    labels = torch.full((n, c), NO_LABEL, dtype=torch.long)  # (B, C)
    for b, value in enumerate(values):
        k = len(value["labels"])
        labels[b, :k] = torch.tensor(value["labels"], dtype=torch.long)
    return {"labels": labels}


def ct_batch(examples: list[Example]) -> Batch:
    """A padded batch of windows with their cell-type targets."""
    return collate(examples, target_collators={TARGET: collate_cell_types})
