"""A workbook prepared once for suggestions: `Target` and `BookContext`.

Coordinates are 0-based `(row, col)`, as in `fortap.sheet.model` (`Sheet.cells[(row, col)]`).
`BookContext.from_workbook` parses every formula cell once (`fortap.formula.parse_formula`, so
each carries its `$`-aware R1C1 text), groups a sheet's formulas by that R1C1 (a dragged block
is one group), and keeps per sheet the cumulative counts of number and text cells, so how many
numbers a re-anchored range covers is four lookups. Everything a candidate source needs per
call is then a dictionary lookup or one vectorised pass over the sheet's formula cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fortap.errors import FortapError
from fortap.formula import Formula, parse_formula
from fortap.sheet.model import Sheet, Workbook

Place = tuple[str, int, int]  # (sheet, row, col)

# prefix-count grids larger than this (cells) are not built: such sheets get no land counts
_MAX_GRID = 4_000_000


@dataclass(frozen=True)
class Target:
    """The cell a suggestion is asked for (0-based row and column)."""

    sheet: str
    row: int
    col: int


@dataclass
class SheetContext:
    """One sheet's formulas and value masks.

    `cells` holds the formula cells in a fixed order with their parsed `Formula`s; `rows`,
    `cols` and `group` are the same cells as arrays (group = index into `r1c1s`), so distances
    from a target to every formula cell are one numpy expression.
    """

    sheet: Sheet
    cells: list[tuple[int, int]]
    formulas: list[Formula]
    r1c1s: list[str]
    rows: np.ndarray  # (N,) int
    cols: np.ndarray  # (N,) int
    group: np.ndarray  # (N,) int, index into r1c1s
    members: dict[str, list[int]]  # r1c1 -> indices into cells
    group_cells: list[np.ndarray]  # group index -> (n,) indices into cells
    index: dict[tuple[int, int], int]  # (row, col) -> index into cells
    header_index: dict | None = field(default=None, repr=False)  # built by the sibling source
    text_group: np.ndarray | None = field(default=None, repr=False)  # built by `verbatim`
    text_count: int = field(default=0, repr=False)
    value_index: dict | None = field(default=None, repr=False)  # built by `candidates.values`
    number_keys: np.ndarray | None = field(default=None, repr=False)  # built by `candidates.values`
    keyed_cells: np.ndarray | None = field(default=None, repr=False)  # built by `keyed`
    grid: object | None = field(default=None, repr=False)  # `synthesis.Grid`, built by `synth`
    grid_built: bool = field(default=False, repr=False)
    label_index: tuple | None = field(default=None, repr=False)  # built by `keyed`
    _counts: dict[str, np.ndarray] | None = field(default=None, repr=False)

    def kind(self, row: int, col: int) -> str:
        return self.sheet.cell(row, col).kind

    def counts(self) -> dict[str, np.ndarray] | None:
        """{"number"|"text": (n_rows+1, n_cols+1) cumulative counts}; None for huge sheets."""
        if self._counts is None:
            s = self.sheet
            if (s.n_rows + 1) * (s.n_cols + 1) > _MAX_GRID:
                return None
            grids = {
                k: np.zeros((s.n_rows + 1, s.n_cols + 1), np.int32) for k in ("number", "text")
            }
            for (r, c), cell in s.cells.items():
                grid = grids.get(cell.kind)
                if grid is not None and r < s.n_rows and c < s.n_cols:
                    grid[r + 1, c + 1] = 1
            self._counts = {k: g.cumsum(0).cumsum(1) for k, g in grids.items()}
        return self._counts

    def count(self, kind: str, box: tuple[int, int, int, int]) -> int | None:
        """How many `kind` cells (number/text) lie in (top, left, bottom, right); None if unknown."""
        counts = self.counts()
        if counts is None:
            return None
        g = counts[kind]
        top, left = max(box[0], 0), max(box[1], 0)
        bottom, right = min(box[2], self.sheet.n_rows - 1), min(box[3], self.sheet.n_cols - 1)
        if bottom < top or right < left:
            return 0
        return int(
            g[bottom + 1, right + 1] - g[top, right + 1] - g[bottom + 1, left] + g[top, left]
        )


class BookContext:
    """A workbook prepared once for suggestions (see the module doc)."""

    def __init__(self, book: Workbook, sheets: dict[str, SheetContext]) -> None:
        self.book = book
        self.sheets = sheets
        self.book_index = None  # built by the book-wide copy source (`candidates.book`)
        self.regions: dict[str, tuple] = {}  # sheet -> its table regions (`candidates.model`)

    @classmethod
    def from_workbook(cls, book: Workbook) -> BookContext:
        return cls(book, {s.name: _sheet_context(s) for s in book.sheets})

    def sheet_names(self) -> list[str]:
        return [s.name for s in self.book.sheets]

    def sheet(self, name: str) -> SheetContext:
        ctx = self.sheets.get(name)
        if ctx is None:
            raise FortapError(f"{self.book.converted_from or self.book.path}: no sheet {name!r}")
        return ctx

    def formula_at(self, sheet: str, row: int, col: int) -> Formula | None:
        """The parsed formula of a cell (None when it holds none or it did not parse)."""
        ctx = self.sheets.get(sheet)
        if ctx is None:
            return None
        i = ctx.index.get((row, col))
        return None if i is None else ctx.formulas[i]

    def dragged_block(self, target: Target) -> frozenset[Place]:
        """The target and the contiguous cells of its row and column sharing its R1C1 text."""
        own = self.formula_at(target.sheet, target.row, target.col)
        block = {(target.sheet, target.row, target.col)}
        if own is None:
            return frozenset(block)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            r, c = target.row + dr, target.col + dc
            while True:
                f = self.formula_at(target.sheet, r, c)
                if f is None or f.r1c1 != own.r1c1:
                    break
                block.add((target.sheet, r, c))
                r, c = r + dr, c + dc
        return frozenset(block)


def _sheet_context(sheet: Sheet) -> SheetContext:
    cells, formulas = [], []
    for (r, c), cell in sorted(sheet.cells.items()):
        if cell.formula is None or cell.formula.strip() in ("", "="):
            continue
        try:
            f = parse_formula(cell.formula, sheet.name, (r, c), cell.array_formula)
        except FortapError:
            continue
        if f.r1c1 is None:
            continue
        cells.append((r, c))
        formulas.append(f)
    r1c1s: list[str] = []
    members: dict[str, list[int]] = {}
    group = np.zeros(len(cells), np.int64)
    for i, f in enumerate(formulas):
        ids = members.get(f.r1c1)  # type: ignore[arg-type]
        if ids is None:
            ids = members[f.r1c1] = []  # type: ignore[index]
            r1c1s.append(f.r1c1)  # type: ignore[arg-type]
        ids.append(i)
    where = {text: k for k, text in enumerate(r1c1s)}
    for i, f in enumerate(formulas):
        group[i] = where[f.r1c1]
    return SheetContext(
        sheet=sheet,
        cells=cells,
        formulas=formulas,
        r1c1s=r1c1s,
        rows=np.array([r for r, _ in cells], np.int64),
        cols=np.array([c for _, c in cells], np.int64),
        group=group,
        members=members,
        group_cells=[np.array(members[text], np.int64) for text in r1c1s],
        index={rc: i for i, rc in enumerate(cells)},
    )
