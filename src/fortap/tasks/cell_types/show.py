"""`fortap cell-types BOOK [--sheet S] [--model FOLDER] [--json]`: the typed grid of a real sheet.

The model is `--model`, or the one shipped in `models/cell-types` (`cell_typer.SHIPPED`:
LightGBM on the features computed from the sheet). The sheet is read by fortap's reader
(`sheet.read.read_workbook`: styles into `CellStyle`, formulas, merged regions) and reduced to
what a SAUS sheet shows (`saus.as_saus`: bold, indent, alignment and the top border; no
formulas, no merges), because a model trained on SAUS never saw the rest vary. The model types
every non-empty cell (`CellTyper.type_sheet`). The grid, over the sheet's occupied rows and
columns (`sheet.occupied.squeeze`), is printed with each cell's text coloured by type, with
the model that typed it, and with `--png FILE` a PNG of the sheet coloured by type. `--json` prints
one record instead: the book, sheet and model, and each typed cell's address, type and
probability (`as_record`). A sheet of more than `MAX_TYPED_CELLS` cells with content is refused
with the cap in the message: typing holds about 5.5 kB a cell (1.66 GB for a sheet of 300,000,
measured by `bench/cli_fuzz.py`'s cap rows; 1.20 GB for 200,000, the cap).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.encoding.piece import RC
from fortap.errors import FortapError, echo
from fortap.formula.references import parse_address
from fortap.outputs import atomic_path, check_file
from fortap.sheet.model import Region, Sheet, a1, column_letter
from fortap.sheet.occupied import squeeze
from fortap.sheet.sheet_part import content_cells
from fortap.table.detect import build_table
from fortap.table.model import Table
from fortap.tasks.cell_types.cell_typer import SHIPPED, CellTyper
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.own_formulas import read_computed, type_cells, uncached
from fortap.tasks.cell_types.saus import as_saus
from fortap.tasks.model_folder import data_name, where_shipped

COLOURS = {  # type -> (grid letter, rich style, PNG colour)
    "metadata": ("M", "bold magenta", "#c77dff"),
    "notes": ("N", "yellow", "#ffd166"),
    "data": ("D", "white", "#e9ecef"),
    "left_attribute": ("L", "green", "#80ed99"),
    "top_attribute": ("T", "cyan", "#4cc9f0"),
    "derived": ("*", "bold red", "#ef476f"),
}
MAX_TYPED_CELLS = 200_000  # cells with content one sheet may hold to be typed (module doc)
FROM_FORMULA = "="  # the grid's letter of a cell typed derived from its own formula
LEGEND = ", ".join(f"{v[0]} {k.replace('_', ' ')}" for k, v in COLOURS.items()) + (
    f", {FROM_FORMULA} derived from its own formula")
NEEDS_MODEL = ("cell-types needs a cell-type model: --model FOLDER, the model/ folder that "
               "`fortap finetune cell-types SAUS_FOLDER -o OUT` writes (OUT/model), SAUS_FOLDER "
               "holding the SAUS cell-type data set (saus.jl.gz)")  # fmt: skip


@dataclass(frozen=True)
class TypedSheet:
    table: Table
    types: dict[RC, int]  # class index of every typed cell
    probabilities: dict[RC, float]  # the model's probability of each typed cell's type
    rows: tuple[int, ...] = ()  # the sheet row of each table row (`sheet.occupied.squeeze`)
    cols: tuple[int, ...] = ()
    by_formula: frozenset[RC] = frozenset()  # cells typed derived from their own formula

    def row(self, r: int) -> int:
        return self.rows[r] if self.rows else self.table.region.top + r

    def col(self, c: int) -> int:
        return self.cols[c] if self.cols else self.table.region.left + c

    def at(self, row: int, col: int) -> RC:
        """The first table row and column at or after sheet cell (`row`, `col`), 0-based
        (the last when it lies past the table)."""
        t = self.table
        r = next((r for r in range(t.n_rows) if self.row(r) >= row), t.n_rows - 1)
        c = next((c for c in range(t.n_cols) if self.col(c) >= col), t.n_cols - 1)
        return max(r, 0), max(c, 0)


def pick_sheet(book: Path, name: str | None) -> Sheet:
    from fortap.sheet.read import read_workbook

    sheets = read_workbook(book).sheets
    if not sheets:
        raise FortapError(f"{book}: no sheet with cells")
    if name is None:
        return sheets[0]
    found = [s for s in sheets if s.name == name]
    if not found:
        raise FortapError(f"{book}: no sheet {name!r}; sheets: {', '.join(s.name for s in sheets)}")
    return found[0]


def refuse_from_file(book: Path, name: str | None) -> None:
    """Refuse, before anything is read, the sheet `name` (else the first with cells) when its
    file says it holds more than `MAX_TYPED_CELLS` cells with content (`content_cells`)."""
    counted = content_cells(book)
    name = name if name is not None else next((n for n, k in counted.items() if k), None)
    if counted.get(name, 0) > MAX_TYPED_CELLS:
        too_large(book, name, counted[name])


def too_large(book: Path, sheet: str, cells: int) -> None:
    raise FortapError(f"{book}: sheet {sheet!r} has {cells:,} cells with content; cell-types "
                      f"types at most {MAX_TYPED_CELLS:,} (about 1.1 GB of memory): type a "
                      "smaller sheet, or a copy holding the table you want typed")  # fmt: skip


def load_typer(model_dir: Path | None) -> tuple[CellTyper, str]:
    """The model of `--model`, or the shipped one without it, and how to name it."""
    folder = SHIPPED if model_dir is None else model_dir
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        given = f"--model {model_dir}" if model_dir is not None else f"the shipped model {folder}"
        hint = NEEDS_MODEL if model_dir is not None else f"{where_shipped(folder)}; {NEEDS_MODEL}"
        raise FortapError(f"{given}: {what}; {hint}")
    name = str(model_dir) if model_dir is not None else f"{data_name(SHIPPED)} (shipped)"
    return CellTyper.load(folder), name


def type_sheet(book: Path, sheet_name: str | None, typer: CellTyper) -> TypedSheet:
    """The sheet as a SAUS-trained model knows it, typed, over its occupied rows and columns;
    a cell whose own formula aggregates or combines the sheet's cells is derived whatever the
    model says (`own_formulas`), its formula computed first when the file holds no value."""
    original = pick_sheet(book, sheet_name)
    if len(original.cells) > MAX_TYPED_CELLS:  # typing holds ~5.5 kB a cell: refuse, not swap
        too_large(book, original.name, len(original.cells))
    if uncached(original):
        original = read_computed(book, lambda copy: pick_sheet(copy, sheet_name))
    typed, own = type_cells(typer, original)  # sheet coordinates
    picked = squeeze(as_saus(original))
    row_at = {r: i for i, r in enumerate(picked.rows)}
    col_at = {c: i for i, c in enumerate(picked.cols)}
    small = picked.sheet
    table = build_table(small, Region(0, 0, max(small.n_rows, 1) - 1, max(small.n_cols, 1) - 1))
    cells = {
        (row_at[r], col_at[c]): t for (r, c), t in typed.items() if r in row_at and c in col_at
    }
    types = {rc: k for rc, (k, _) in cells.items()}
    probs = {rc: p for rc, (_, p) in cells.items()}
    by_formula = frozenset((row_at[r], col_at[c]) for r, c in own if r in row_at and c in col_at)
    return TypedSheet(table, types, probs, picked.rows, picked.cols, by_formula)


def as_record(book: Path, typed: TypedSheet, model: str, typer: CellTyper) -> dict:
    """What `--json` prints: the book, sheet and model, and each typed cell row by row with its
    address in the sheet, its type and the model's probability of it."""
    cells = [{"cell": a1(typed.row(r), typed.col(c)), "type": CELL_TYPES[k],
              "probability": round(typed.probabilities[(r, c)], 4),
              "from": "formula" if (r, c) in typed.by_formula else "model"}
             for (r, c), k in sorted(typed.types.items())]  # fmt: skip
    return {"book": str(book), "sheet": typed.table.sheet, "model": model, "kind": typer.kind,
            "cells": cells}  # fmt: skip


def grid(typed: TypedSheet, max_rows: int, max_cols: int, width: int = 12,
         start: RC = (0, 0)) -> RichTable:  # fmt: skip
    """`max_rows` rows and `max_cols` columns of the sheet from table cell `start`, each typed
    cell's text in its type's colour."""
    t, (r0, c0) = typed.table, start
    rows, cols = range(r0, min(t.n_rows, r0 + max_rows)), range(c0, min(t.n_cols, c0 + max_cols))
    out = RichTable(show_lines=False, title=f"{t.sheet} of {Path(t.book).name}")
    out.add_column("", no_wrap=True, width=len(str(typed.row(t.n_rows - 1) + 1)), style="dim")
    for c in cols:
        out.add_column(column_letter(typed.col(c)), no_wrap=True, max_width=width)
    for r in rows:
        row = []
        for c in cols:
            kind = typed.types.get((r, c))
            text = t.cell(r, c).text.strip()[:width].replace("[", "\\[")
            if kind is not None:  # the letter keeps the type readable without colours
                letter, style, _ = COLOURS[CELL_TYPES[kind]]
                letter = FROM_FORMULA if (r, c) in typed.by_formula else letter
                text = f"[{style}]{letter} {text}[/]"
            row.append(text)
        out.add_row(str(typed.row(r) + 1), *row)
    return out


def write_png(typed: TypedSheet, path: Path) -> None:
    """The sheet as coloured cells (empty cells white), a legend of the six types."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    t = typed.table
    codes = [
        [typed.types.get((r, c), len(CELL_TYPES)) for c in range(t.n_cols)] for r in range(t.n_rows)
    ]
    colours = [COLOURS[name][2] for name in CELL_TYPES] + ["#ffffff"]
    fig, ax = plt.subplots(figsize=(min(2 + 0.9 * t.n_cols, 40), min(1.5 + 0.3 * t.n_rows, 60)))
    ax.imshow(codes, cmap=ListedColormap(colours), vmin=0, vmax=len(CELL_TYPES), aspect="auto")
    if t.n_rows * t.n_cols <= 2500:  # text stays legible
        for (r, c), _ in typed.types.items():
            ax.text(c, r, t.cell(r, c).text.strip()[:14], ha="center", va="center", fontsize=6)
    ax.set_xticks(
        range(t.n_cols), [column_letter(typed.col(c)) for c in range(t.n_cols)], fontsize=7
    )
    ax.set_yticks(range(t.n_rows), [str(typed.row(r) + 1) for r in range(t.n_rows)], fontsize=6)
    handles = [Patch(color=COLOURS[n][2], label=n.replace("_", " ")) for n in CELL_TYPES]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    ax.set_title(f"{t.sheet} of {Path(t.book).name}: cell types")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_cell_types(book: Path, sheet: str | None, model: Path | None, png: Path | None,
                   max_rows: int = 60, max_cols: int = 16, console: Console | None = None,
                   overwrite: bool = False, as_json: bool = False,
                   start: str | None = None) -> TypedSheet:  # fmt: skip
    """Type the sheet, print its grid (or `as_record` alone on stdout, `as_json`), the model and
    the count of each type; write a PNG only when `png` asks for one (checked before the model
    runs), so a second run of the same command never meets its own first output."""
    if max_rows < 1:
        raise FortapError(f"--rows must be >= 1, got {max_rows}")
    corner = parse_address(start.strip().upper()) if start is not None else None
    if start is not None and (corner is None or corner[1] is not None):
        raise FortapError(f"--start takes one cell such as E20, got {echo(start)}")
    if png is not None:
        check_file(png, "--png", overwrite, ".png")
    console = console or Console()
    refuse_from_file(book, sheet)  # before the model loads: seconds, not a minute
    typer, model_name = load_typer(model)
    typed = type_sheet(book, sheet, typer)
    if as_json:
        print(json.dumps(as_record(book, typed, model_name, typer), ensure_ascii=False))
        if png is not None:
            with atomic_path(png) as tmp:
                write_png(typed, tmp)
        return typed
    t = typed.table
    max_cols = min(max_cols, max(1, (console.width - 6) // 16))  # the columns the screen holds
    r0, c0 = typed.at(corner[0].row, corner[0].col) if corner is not None else (0, 0)
    console.print(grid(typed, max_rows, max_cols, start=(r0, c0)))
    r1, c1 = min(t.n_rows, r0 + max_rows) - 1, min(t.n_cols, c0 + max_cols) - 1
    if (r0, c0) != (0, 0) or r1 < t.n_rows - 1 or c1 < t.n_cols - 1:
        nxt = column_letter(typed.col(c1 + 1)) + str(typed.row(r0) + 1) if c1 + 1 < t.n_cols \
            else column_letter(typed.col(c0)) + str(typed.row(min(r1 + 1, t.n_rows - 1)) + 1)
        console.print(f"(rows {typed.row(r0) + 1}-{typed.row(r1) + 1} of {t.n_rows} and columns "
                      f"{column_letter(typed.col(c0))}-{column_letter(typed.col(c1))} of "
                      f"{t.n_cols} shown; --start {nxt} shows the next, --png draws them all)")  # fmt: skip
    counts = {name: sum(v == i for v in typed.types.values()) for i, name in enumerate(CELL_TYPES)}
    console.print("types: " + ", ".join(f"[{COLOURS[n][1]}]{n}[/] {k}" for n, k in counts.items())
                  + f" ({len(typed.by_formula)} derived from their own formulas)")
    console.print(f"letters: {LEGEND}")
    console.print(f"typed by {model_name}: {typer.summary}", highlight=False)
    if png is not None:
        with atomic_path(png) as tmp:
            write_png(typed, tmp)
        console.print(f"PNG: {png}")
    return typed
