"""`CellTyper`: a fine-tuned cell-type model as one object, for callers outside the task.

    typer = CellTyper.load("models/cell-types")       # or a finetune run's OUT/model
    types = typer.predict(table)                      # {(row, col): "left_attribute", ...}

`load(folder)` reads the folder once (`checkpoint.load_cell_type_model`, the shared layout of
`tasks.model_folder`); `predict(table)` types every non-empty cell a window shows, each from
its owner window (`predict.predict_table`); `save(folder, dtype)` writes it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from fortap.encoding.piece import RC
from fortap.encoding.serialize import SerializeConfig
from fortap.table.model import Table
from fortap.tasks.cell_types.checkpoint import load_cell_type_model, save_cell_type_model
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.model import CellTypeModel
from fortap.tasks.cell_types.predict import predict_table
from fortap.text.tokenizer import Tokenizer


@dataclass
class CellTyper:
    folder: Path
    model: CellTypeModel  # in eval mode
    inputs: SerializeConfig  # how its windows are serialised
    tokenizer: Tokenizer

    @classmethod
    def load(cls, folder: str | Path) -> CellTyper:
        torch.set_flush_denormal(True)
        model, inputs = load_cell_type_model(folder)
        return cls(Path(folder), model, inputs, Tokenizer())

    def predict_ids(self, table: Table, batch_size: int = 16) -> dict[RC, int]:
        """The class index (into `CELL_TYPES`) of every typed cell of `table`."""
        return predict_table(self.model, table, self.tokenizer, self.inputs, batch_size)

    def predict(self, table: Table, batch_size: int = 16) -> dict[RC, str]:
        """The type of every non-empty cell of `table` that a window shows (table-relative)."""
        return {rc: CELL_TYPES[k] for rc, k in self.predict_ids(table, batch_size).items()}

    def save(self, folder: str | Path, dtype: torch.dtype | None = None) -> None:
        save_cell_type_model(self.model, folder, self.inputs, dtype)
