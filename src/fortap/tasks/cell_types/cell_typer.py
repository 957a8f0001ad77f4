"""`CellTyper`: a cell-type model as one object, for callers outside the task.

    typer = CellTyper.load("models/cell-types")       # or a finetune run's OUT/model
    typed = typer.type_sheet(sheet)                   # {(row, col): (class index, probability)}
    types = typer.predict(table)                      # {(row, col): "left_attribute", ...}

A folder holds one of two kinds of model (model.json's `kind`, `tasks.model_folder`):
`encoder`, a fine-tuned encoder with a linear head over windows of the sheet
(`encoder_typer.EncoderTyper`), or `boosted`, LightGBM on the features computed from the sheet
(`boosted_typer.BoostedTyper`; the shipped `models/cell-types` is one). `load` reads the kind
and the folder once; both kinds answer `type_sheet` (sheet coordinates), `type_table` (table
coordinates) and `save`. The encoder kind is imported only when a folder holds one, so a
boosted folder is read and used without torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fortap.sheet.model import Sheet
from fortap.table.model import Table
from fortap.tasks import model_folder
from fortap.tasks.cell_types.boosted_typer import KIND as BOOSTED
from fortap.tasks.cell_types.boosted_typer import BoostedTyper
from fortap.tasks.cell_types.features import RC
from fortap.tasks.cell_types.hybrid_typer import KIND as HYBRID
from fortap.tasks.cell_types.hybrid_typer import HybridTyper
from fortap.tasks.cell_types.labels import CELL_TYPES, Typed

if TYPE_CHECKING:
    from fortap.tasks.cell_types.encoder_typer import EncoderTyper

SHIPPED = model_folder.shipped("cell-types")  # what `fortap cell-types` uses by default


@dataclass
class CellTyper:
    folder: Path
    kind: str  # model.json's kind: "encoder", "boosted" or "hybrid"
    model: EncoderTyper | BoostedTyper | HybridTyper  # the kind's own typer

    @classmethod
    def load(cls, folder: str | Path) -> CellTyper:
        kind = model_folder.folder_kind(folder)
        if kind == BOOSTED:
            return cls(Path(folder), kind, BoostedTyper.load(folder))
        if kind == HYBRID:  # loading it builds its encoder (torch)
            return cls(Path(folder), kind, HybridTyper.load(folder))
        from fortap.tasks.cell_types.encoder_typer import EncoderTyper  # torch, for this kind

        return cls(Path(folder), kind, EncoderTyper.load(folder))

    @property
    def summary(self) -> str:
        """What kind of model it is, in a few words (`fortap cell-types` prints it)."""
        return self.model.summary

    def type_sheet(self, sheet: Sheet) -> dict[RC, Typed]:
        """Every typed cell of `sheet` (sheet coordinates) -> (class index, probability)."""
        return self.model.type_sheet(sheet)

    def type_table(self, table: Table) -> dict[RC, Typed]:
        """Every typed cell of `table` (table coordinates) -> (class index, probability)."""
        return self.model.type_table(table)

    def predict_ids(self, table: Table) -> dict[RC, int]:
        """The class index (into `CELL_TYPES`) of every typed cell of `table`."""
        return {rc: k for rc, (k, _) in self.type_table(table).items()}

    def predict(self, table: Table) -> dict[RC, str]:
        """The type of every typed cell of `table` (table coordinates), by name."""
        return {rc: CELL_TYPES[k] for rc, k in self.predict_ids(table).items()}

    def save(self, folder: str | Path, dtype=None) -> None:
        """Write the model into `folder`; `dtype` (bfloat16) narrows an encoder's weights (a
        booster has none to narrow)."""
        if not hasattr(self.model, "model"):  # a booster (boosted, hybrid): nothing to narrow
            self.model.save(folder)
        else:
            self.model.save(folder, dtype)
