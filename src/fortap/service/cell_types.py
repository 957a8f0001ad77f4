"""The page's cell-type colouring: each cell of a sheet typed by the shipped cell-type model.

The sheet is typed as `fortap cell-types` types it (`cell_types.own_formulas.type_cells`): the
model reads what a SAUS sheet shows, and a cell whose own formula aggregates or combines the
sheet's cells is derived. The record names each typed cell as `fortap cell-types --json` does
(`cell`, `type`, `probability`, `from`: `formula` or `model`), with
the model that typed it and a legend in the colours of that command's PNG (`show.COLOURS`), so
the page and the PNG agree. The route caches the record per sheet in the session
(`OpenBook.cell_types`) until a formula is written into that sheet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fortap.service.grid import refuse_large
from fortap.service.shipped_models import load_once
from fortap.sheet.model import Sheet, a1
from fortap.tasks.cell_types.cell_typer import SHIPPED, CellTyper
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.own_formulas import type_cells
from fortap.tasks.cell_types.show import COLOURS
from fortap.tasks.model_folder import data_name

# the booster types ~8,000 cells a second on one core; past this a request would wait minutes
MAX_TYPED_CELLS = 100_000
LEGEND = [{"type": name, "colour": COLOURS[name][2]} for name in CELL_TYPES]


def model_name(folder: Path | None) -> str:
    """The model as `fortap cell-types` names it: `models/cell-types (shipped)` or the folder."""
    return f"{data_name(SHIPPED)} (shipped)" if folder is None else str(folder)


def typed_record(sheet: Sheet, folder: Path | None) -> dict[str, Any]:
    """Every typed cell of `sheet`, row by row, with its type and the model's probability of it;
    `folder` None = the shipped model."""
    refuse_large(sheet, MAX_TYPED_CELLS, "the cell-type colouring types")
    typer = load_once(folder or SHIPPED, "the cell-type colouring", CellTyper.load)
    typed, own = type_cells(typer, sheet)
    cells = [{"cell": a1(r, c), "type": CELL_TYPES[k], "probability": round(p, 4),
              "from": "formula" if (r, c) in own else "model"}
             for (r, c), (k, p) in sorted(typed.items())]  # fmt: skip
    return {
        "sheet": sheet.name,
        "model": model_name(folder),
        "kind": typer.kind,
        "legend": LEGEND,
        "cells": cells,
    }
