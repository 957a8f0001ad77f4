"""What other packages (the audit, the service) use of the suggestion engine: the one public door.

A workbook is opened once (`open_book`: a `Suggester`, whose `context` holds each sheet's parsed
formulas as a `SheetContext`); then, per cell, as 0-based (row, col) of a named sheet:
- `preview`: the value a formula would show at the cell, with chosen cells read as empty;
- `current`: the value the cell shows now, as the preview engine computes it;
- `candidates`: the engine's best `k` suggestions for the cell, ranked and previewed, asked as
  `fortap suggest` asks (the sheet setting, the cell itself hidden), with the ranker's features
  of each;
- `reanchor` / `refs_of`: a formula copied to another cell as Excel's fill does it, and the
  references a formula tree holds;
- `find_sheet`: a sheet by name (exact, then ignoring case), or an error naming the book;
- `source_names`: the name of every candidate source a suggestion can come from;
- `native_stderr_silenced`: file descriptor 2 sent to /dev/null while the engine runs, so that
  formualizer's panic text stays off the terminal.

Everything else under `fortap.suggest` may change without notice to other packages;
`tests/audit/test_suggest_door.py` checks that the audit imports nothing else from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fortap.suggest.calc_book import native_stderr_silenced
from fortap.suggest.candidates import source_names as sheet_source_names
from fortap.suggest.candidates.anchor import Copy, reanchor, refs_of
from fortap.suggest.candidates.base import MODEL_SOURCE
from fortap.suggest.cells import find_sheet
from fortap.suggest.context import SheetContext, Target
from fortap.suggest.engine import MAX_BOOK_CELLS, Suggester, Suggestion
from fortap.suggest.preview import Preview

__all__ = [
    "Copy",
    "Preview",
    "SheetContext",
    "Suggester",
    "Suggestion",
    "candidates",
    "current",
    "find_sheet",
    "native_stderr_silenced",
    "open_book",
    "preview",
    "reanchor",
    "refs_of",
    "source_names",
]

Cell = tuple[int, int]  # 0-based row, col


def open_book(path: Path, ranker: Path | None = None, max_cells: int = MAX_BOOK_CELLS) -> Suggester:
    """The workbook at `path` read once for suggestions and previews, ranked by the ranker
    folder `ranker` (None: the shipped one); a `FortapError` when it cannot be read or holds
    more than `max_cells` cells with content."""
    return Suggester.open(path, ranker=ranker, max_cells=max_cells)


def preview(sg: Suggester, sheet: str, cell: Cell, formula: str,
            hidden: frozenset[tuple[str, int, int]] = frozenset()) -> Preview:  # fmt: skip
    """What `formula` would show at `cell` of `sheet`, the `hidden` (sheet, row, col) places
    read as empty."""
    row, col = cell
    return sg.previewer.preview(sheet, row + 1, col + 1, formula, hidden=hidden)


def current(sg: Suggester, sheet: str, cell: Cell) -> Preview:
    """The value `cell` of `sheet` shows now, as the preview engine computes it."""
    row, col = cell
    return sg.previewer.value(sheet, row + 1, col + 1)


def candidates(sg: Suggester, sheet: str, cell: Cell,
               k: int) -> list[tuple[Suggestion, Mapping[str, float]]]:  # fmt: skip
    """The engine's best `k` suggestions for `cell` of `sheet`, each with its preview (rank 1
    first), as `fortap suggest` gives them: the sheet setting, the cell itself hidden. Each
    comes with its candidate's features, the ranker's inputs (`copy_log_n`: the size of the
    block a copy comes from, ...)."""
    ranking = sg.ranking(Target(sheet, *cell), k=k)
    features = {c.formula: c.features for c in ranking.candidates}
    return [(s, features.get(s.formula, {})) for s in ranking.printed]


def source_names() -> tuple[str, ...]:
    """The name of every candidate source a suggestion can come from (`Suggestion.source`), in
    generation order: those of `fortap suggest`, then a formula-prediction model's (a suggester
    opened with a model, as `fortap serve --model` opens one)."""
    return (*sheet_source_names(), MODEL_SOURCE)
