"""`HybridTyper`: a frozen encoder's cell states beside the extracted features under one
LightGBM head, the `hybrid` kind of cell-type model folder.

    DIR/model.json      {"task": "cell-types", "kind": "hybrid", "inputs": the windows'
                        SerializeConfig, "head": {"features": the booster's columns in order,
                        "encoder": the frozen encoder's name (`fortap finetune --encoder`),
                        "seed", "setting", "rounds"}, "labels": the six types}
    DIR/booster.txt     the booster in LightGBM's text format (never a pickle)
    DIR/reduction.npz   the principal components of the encoder's states (`hybrid.Reduction`:
                        `mean` (D,), `components` (D, P)), read without pickle
    DIR/metrics.json, DIR/README.md   as every model folder's

The encoder is named, not stored: it is a shipped encoder (`models/encoders/NAME`) or MiniLM,
so the folder holds only the booster and the components. `type_sheet(sheet)` reads the sheet
as one table over its used range, as training read each SAUS sheet (`saus.SausSheet.table`),
computes every occupied cell's features and its owner window's state, and gives each cell its
most likely type with the booster's probability of it.

Letters: N cells, D hidden, P principal components, K classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError
from fortap.sheet.model import Region, Sheet
from fortap.table.detect import build_table
from fortap.table.model import Table
from fortap.tasks import model_folder
from fortap.tasks.cell_types.boosted_typer import BOOSTER, table_sheet
from fortap.tasks.cell_types.features import FEATURE_NAMES, RC, CellFeatures, sheet_features
from fortap.tasks.cell_types.hybrid import Reduction, state_names
from fortap.tasks.cell_types.labels import CELL_TYPES, TASK, Typed

KIND = "hybrid"  # model.json's kind
REDUCTION = "reduction.npz"


@dataclass
class HybridTyper:
    booster: object  # a lightgbm.Booster over FEATURE_NAMES + state_0..state_{P-1}
    reduction: Reduction
    encoder: object  # the frozen FortapEncoder the head reads, in eval mode
    inputs: SerializeConfig  # how its windows are serialised
    info: dict = field(default_factory=dict)  # {"encoder", "seed", "setting", "rounds"}

    @property
    def summary(self) -> str:
        c = self.encoder.config
        return (f"hybrid: LightGBM, {self.booster.num_trees()} trees over the sheet's features "
                f"and {self.reduction.components.shape[1]} components of a frozen "
                f"{c.layers}-layer, {c.hidden}-hidden encoder ({self.info.get('encoder')})")  # fmt: skip

    @classmethod
    def load(cls, folder: str | Path) -> HybridTyper:
        import lightgbm as lgb

        folder = Path(folder)
        meta = model_folder.read_meta(folder, TASK, CELL_TYPES, KIND)
        head = meta.head
        try:
            booster = lgb.Booster(model_str=(folder / BOOSTER).read_text())
            with np.load(folder / REDUCTION, allow_pickle=False) as z:
                reduction = Reduction(z["mean"], z["components"])
        except (OSError, KeyError, ValueError, lgb.basic.LightGBMError) as err:
            raise CheckpointError(f"cannot read the hybrid model in {folder}: {err}") from None
        known = FEATURE_NAMES + state_names(reduction.components.shape[1])
        unknown = [n for n in booster.feature_name() if n not in known]
        if unknown or booster.feature_name() != list(head.get("features", [])):
            raise CheckpointError(f"{folder}: the booster's columns differ from model.json's or "
                                  f"from what this fortap computes: {unknown}")  # fmt: skip
        info = {k: v for k, v in head.items() if k != "features"}
        return cls(booster, reduction, frozen_encoder(info["encoder"], info.get("seed", 0)),
                   meta.inputs, info)  # fmt: skip

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / BOOSTER).write_text(self.booster.model_to_string())
        np.savez(folder / REDUCTION, mean=self.reduction.mean,
                 components=self.reduction.components)  # fmt: skip
        head = {"features": list(self.booster.feature_name()), **self.info}
        model_folder.write_meta(
            folder, model_folder.FolderMeta(TASK, self.inputs, head, CELL_TYPES, KIND)
        )

    def type_sheet(self, sheet: Sheet) -> dict[RC, Typed]:
        """Every occupied cell of `sheet` (sheet coordinates) -> its type and probability."""
        from fortap.tasks.cell_types.states import table_states
        from fortap.text.tokenizer import Tokenizer

        features = sheet_features(sheet)
        table = build_table(sheet, Region(0, 0, max(sheet.n_rows, 1) - 1, max(sheet.n_cols, 1) - 1))
        states = table_states(
            self.encoder, table, features.cells, Tokenizer(), self.inputs
        )  # (N, D)
        reduced = self.reduction.reduce(states)  # (N, P)
        names = features.names + state_names(reduced.shape[1])
        joined = CellFeatures(names, features.cells, np.concatenate([features.values, reduced], 1))
        if not len(joined.values):
            return {}
        probs = self.booster.predict(joined.select(self.booster.feature_name()))  # (N, K)
        best = probs.argmax(1)  # (N,)
        return {rc: (int(best[i]), float(probs[i, best[i]])) for i, rc in enumerate(joined.cells)}

    def type_table(self, table: Table) -> dict[RC, Typed]:
        """Every occupied cell of `table` (table coordinates), the table read as a sheet."""
        return self.type_sheet(table_sheet(table))


def frozen_encoder(name: str, seed: int = 0):
    """The encoder `fortap finetune cell-types --encoder NAME` starts from, frozen."""
    import torch

    from fortap.tasks.recipe import EncoderStart, Training, start_encoder
    from fortap.text.tokenizer import Tokenizer

    torch.set_flush_denormal(True)
    encoder = start_encoder(EncoderStart(name), Training(seed=seed), Tokenizer().vocab_size)
    return encoder.eval().requires_grad_(False)
