"""A frozen encoder's state of each labelled cell of a SAUS sheet, for the hybrid model.

`sheet_states(encoder, sheet, tokenizer, cfg)` cuts the sheet into the task's windows
(`examples.table_windows`, the windows fine-tuning reads), runs the encoder without gradients,
and gives each labelled cell the state its *owner* window gives it (`examples.owners`: the
cell is read where it is scored, the encoder's `cell_states`, by default the mean of the
cell's token states of the last layer). The rows follow the labelled cells row by row, the
order of `feature_models.labelled_features`, so row i of the states and of the features is
the same cell. A labelled cell that no window shows gets a row of NaN: LightGBM reads it as
missing, as the fine-tuned model scores it as `examples.FALLBACK`.

`save_states` / `load_states` keep one encoder's states of every sheet in one .npz (float16:
a state needs no more for a head of trees), keyed by `SausSheet.key`.

Letters: N labelled cells of a sheet, D hidden, B windows, C cells of a window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import FortapError
from fortap.table.model import Table
from fortap.tasks.cell_types.examples import ct_batch, owners, table_windows
from fortap.tasks.cell_types.labels import NO_LABEL
from fortap.tasks.cell_types.saus import SausSheet
from fortap.text.tokenizer import Tokenizer


def labelled_cells(labels: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """The labelled cells, row by row (`feature_models.labelled_features`' order)."""
    return [(r, c) for r, row in enumerate(labels) for c, label in enumerate(row)
            if label != NO_LABEL]  # fmt: skip


@torch.no_grad()
def window_states(encoder: torch.nn.Module, windows: Sequence, batch_size: int = 8) -> list:
    """(C, D) float32 state of each cell of each window (window order), the encoder frozen."""
    encoder.eval()
    out: list[np.ndarray] = []
    for i in range(0, len(windows), batch_size):
        part = list(windows[i : i + batch_size])
        states = encoder(ct_batch(part)).cell_states.float()  # (B, C, D)
        out += [states[b, : len(ex.cell_coords)].numpy() for b, ex in enumerate(part)]
    return out


def table_states(encoder: torch.nn.Module, table: Table, cells: Sequence[tuple[int, int]],
                 tokenizer: Tokenizer, cfg: SerializeConfig, batch_size: int = 8,
                 ) -> np.ndarray:  # fmt: skip
    """(N, D) float32 owner-window state of each of `cells` (table coordinates); NaN where no
    window shows it."""
    windows = table_windows(table, tokenizer, cfg)
    per_window = window_states(encoder, windows, batch_size)
    own = owners(windows)
    out = np.full((len(cells), encoder.config.hidden), np.nan, dtype=np.float32)  # (N, D)
    for i, rc in enumerate(cells):
        if rc in own:
            w, k = own[rc]
            out[i] = per_window[w][k]
    return out


def sheet_states(encoder: torch.nn.Module, sheet: SausSheet, tokenizer: Tokenizer,
                 cfg: SerializeConfig, batch_size: int = 8) -> np.ndarray:  # fmt: skip
    """(N, D) float32 owner-window state of each labelled cell; NaN where no window shows it."""
    cells = labelled_cells(sheet.labels)
    return table_states(encoder, sheet.table(), cells, tokenizer, cfg, batch_size)


def save_states(path: Path, states: Mapping[str, np.ndarray], encoder: str) -> None:
    """Write `{sheet key: (N, D)}` as one .npz (float16), with the encoder's name."""
    keys = sorted(states)
    path.parent.mkdir(parents=True, exist_ok=True)
    sizes = np.asarray([len(states[k]) for k in keys], dtype=np.int64)
    stacked = np.concatenate([states[k] for k in keys]).astype(np.float16)  # (sum N, D)
    np.savez(path, keys=np.asarray(keys), sizes=sizes, states=stacked, encoder=np.asarray(encoder))


def load_states(path: Path) -> dict[str, np.ndarray]:
    """`{sheet key: (N, D) float32}` as `save_states` wrote it."""
    if not Path(path).is_file():
        raise FortapError(f"no cell states at {path}: encode the sheets first")
    with np.load(path) as z:
        keys, sizes, stacked = z["keys"].tolist(), z["sizes"], z["states"].astype(np.float32)
    parts = np.split(stacked, np.cumsum(sizes)[:-1])
    return dict(zip(keys, parts, strict=True))
