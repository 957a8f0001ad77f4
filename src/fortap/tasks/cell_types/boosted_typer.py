"""`BoostedTyper`: LightGBM on the extracted features, the `boosted` kind of cell-type model folder.

    DIR/model.json    {"task": "cell-types", "kind": "boosted", "inputs": null, "head":
                      {"features": the booster's feature names in column order, "setting",
                      "rounds"}, "labels": the six types}
    DIR/booster.txt   the booster in LightGBM's own text format (`Booster.model_to_string`;
                      never a pickle)
    DIR/metrics.json, DIR/README.md   as every model folder's (`tasks.model_folder`)

No encoder and no windows: `type_sheet(sheet)` computes the features of every occupied cell
(`features.sheet_features`, whose cost grows with the cells, not the used range) and gives
each its most likely type with the booster's probability of it. Loading refuses a folder whose
booster names other features than its model.json, or names one this fortap does not compute,
by name. Nothing here imports torch, so typing a sheet with this kind starts fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fortap.errors import CheckpointError
from fortap.sheet.model import Sheet
from fortap.table.model import Table
from fortap.tasks import model_folder
from fortap.tasks.cell_types.boosted import probabilities
from fortap.tasks.cell_types.features import FEATURE_NAMES, RC, sheet_features
from fortap.tasks.cell_types.labels import CELL_TYPES, TASK, Typed

KIND = "boosted"  # model.json's kind
BOOSTER = "booster.txt"


@dataclass
class BoostedTyper:
    booster: object  # a lightgbm.Booster over `feature_names`
    info: dict = field(default_factory=dict)  # how it was chosen: {"setting", "rounds"}

    @property
    def feature_names(self) -> list[str]:
        return list(self.booster.feature_name())

    @property
    def summary(self) -> str:
        trees = self.booster.num_trees()
        return (f"boosted: LightGBM alone, {trees} trees over {len(self.feature_names)} "
                f"features computed from the sheet; no encoder")  # fmt: skip

    @classmethod
    def load(cls, folder: str | Path) -> BoostedTyper:
        import lightgbm as lgb

        folder = Path(folder)
        meta = model_folder.read_meta(folder, TASK, CELL_TYPES, KIND)
        names = list(meta.head.get("features", []))
        unknown = [n for n in names if n not in FEATURE_NAMES]
        if unknown:
            raise CheckpointError(f"{folder / model_folder.MODEL_JSON}: trained on features "
                                  f"this fortap does not compute: {unknown}")  # fmt: skip
        path = folder / BOOSTER
        try:
            booster = lgb.Booster(model_str=path.read_text())
        except (OSError, lgb.basic.LightGBMError) as err:
            raise CheckpointError(f"cannot read the booster {path}: {err}") from None
        if booster.feature_name() != names:
            raise CheckpointError(f"{path}: its features differ from those model.json names "
                                  f"({len(booster.feature_name())} against {len(names)})")  # fmt: skip
        info = {k: v for k, v in meta.head.items() if k != "features"}
        return cls(booster, info)

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / BOOSTER).write_text(self.booster.model_to_string())
        head = {"features": self.feature_names, **self.info}
        model_folder.write_meta(folder, model_folder.FolderMeta(TASK, None, head, CELL_TYPES, KIND))

    def type_sheet(self, sheet: Sheet) -> dict[RC, Typed]:
        """Every occupied cell of `sheet` (sheet coordinates) -> its type and probability."""
        features = sheet_features(sheet)
        probs = probabilities(self.booster, features)  # (N, K)
        best = probs.argmax(1)  # (N,)
        return {rc: (int(best[i]), float(probs[i, best[i]])) for i, rc in enumerate(features.cells)}

    def type_table(self, table: Table) -> dict[RC, Typed]:
        """Every occupied cell of `table` (table coordinates), the table read as a sheet."""
        return self.type_sheet(table_sheet(table))


def table_sheet(table: Table) -> Sheet:
    """`table` as a sheet of its own region: cell (r, c) of the table is cell (r, c) here."""
    cells = {(r, c): cell for r, row in enumerate(table.cells) for c, cell in enumerate(row)
             if cell.kind != "empty"}  # fmt: skip
    return Sheet(table.sheet, table.book, table.n_rows, table.n_cols, cells, table.merged)
