"""`EncoderTyper`: a fine-tuned encoder with its linear head, the `encoder` kind of cell-type
model folder (`checkpoint`: `encoder/`, `head.safetensors`, model.json).

`load(folder)` reads the folder once (`checkpoint.load_cell_type_model`); `type_table(table)`
types every non-empty cell a window shows, each from its owner window (`predict.type_table`);
`type_sheet(sheet)` does it over the sheet's occupied rows and columns (`sheet.occupied.squeeze`,
so the windows grow with the cells, not the used range); `save(folder, dtype)` writes it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from fortap.encoding.piece import RC
from fortap.encoding.serialize import SerializeConfig
from fortap.sheet.model import Region, Sheet
from fortap.sheet.occupied import squeeze
from fortap.table.detect import build_table
from fortap.table.model import Table
from fortap.tasks.cell_types.checkpoint import load_cell_type_model, save_cell_type_model
from fortap.tasks.cell_types.labels import Typed
from fortap.tasks.cell_types.model import CellTypeModel
from fortap.tasks.cell_types.predict import type_table
from fortap.text.tokenizer import Tokenizer


@dataclass
class EncoderTyper:
    model: CellTypeModel  # in eval mode
    inputs: SerializeConfig  # how its windows are serialised
    tokenizer: Tokenizer

    @property
    def summary(self) -> str:
        c = self.model.encoder.config
        return (f"encoder: a {c.layers}-layer, {c.hidden}-hidden encoder with a linear head, "
                f"windows of {self.inputs.max_seq_len} tokens")  # fmt: skip

    @classmethod
    def load(cls, folder: str | Path) -> EncoderTyper:
        torch.set_flush_denormal(True)
        model, inputs = load_cell_type_model(folder)
        return cls(model, inputs, Tokenizer())

    def type_table(self, table: Table, batch_size: int = 16) -> dict[RC, Typed]:
        return type_table(self.model, table, self.tokenizer, self.inputs, batch_size)

    def type_sheet(self, sheet: Sheet, batch_size: int = 16) -> dict[RC, Typed]:
        """Every typed cell of `sheet` (sheet coordinates) -> its type and probability."""
        picked = squeeze(sheet)
        small = picked.sheet
        region = Region(0, 0, max(small.n_rows, 1) - 1, max(small.n_cols, 1) - 1)
        typed = self.type_table(build_table(small, region), batch_size)
        return {(picked.rows[r], picked.cols[c]): t for (r, c), t in typed.items()}

    def save(self, folder: str | Path, dtype: torch.dtype | None = None) -> None:
        save_cell_type_model(self.model, folder, self.inputs, dtype)
