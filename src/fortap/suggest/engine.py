"""`Suggester`: a workbook opened once, then ranked formula suggestions with previews per cell.

`Suggester.open` reads the workbook with fortap's reader, prepares the candidate sources'
`BookContext`, loads the ranker, the formualizer engine for previews and, when a model folder
is given, the formula-prediction model (`candidates.model.ModelSource`, once: each call then
costs one encoder pass and a beam search more). `suggest(sheet, cell, k)` hides the cell's own
formula (the candidate sources never see it, the preview overwrites it) and any other cells the
caller hides (an evaluation setting's), generates every candidate, ranks them, previews a
shortlist of the best `k + SHORTLIST_EXTRA` (their work bounded, and their engine-route time
shared, per call: `preview_budget`) and returns the best `k`: within the shortlist,
candidates whose preview is an error of their own (`Preview.own_error`: a `#DIV/0!` they
introduce, a `#REF!`) move after the others; otherwise the ranker's order is kept. An error the
candidate only passes on from its inputs, or a value the engine cannot compute, moves nothing.
`ranking` returns the ranker's whole order beside the printed one (what the evaluation scores).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fortap.errors import FortapError, where
from fortap.sheet.limits import ReadLimits
from fortap.sheet.model import Cell, Workbook
from fortap.suggest.candidates import generate
from fortap.suggest.candidates.base import Candidate
from fortap.suggest.cells import find_sheet, locate, parse_cell
from fortap.suggest.context import BookContext, Place, Target
from fortap.suggest.preview import Preview, Previewer
from fortap.suggest.preview_budget import CallBudget

SHORTLIST_EXTRA = 3  # previews computed for the ranker's top k + 3


MAX_BOOK_CELLS = 1_000_000  # cells with content a book may hold: about 1.3 kB each once read


@dataclass(frozen=True)
class Suggestion:
    """One ranked suggestion with the value it would produce in the cell."""

    rank: int
    formula: str
    value: str | float | bool | None  # the preview value (None = empty, or an error)
    error: str | None  # an Excel error such as "#DIV/0!" when the preview is one
    source: str
    reason: str
    score: float
    note: str | None = None  # "not computed: <reason>", inputs holding errors, cached inputs
    array: bool = False  # an array (Ctrl+Shift+Enter) formula, as the workbook holds its like

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class SheetInfo:
    """A sheet's name and used range (rows and columns from A1)."""

    name: str
    n_rows: int
    n_cols: int


@dataclass(frozen=True)
class Ranking:
    """One call's candidates, the ranker's whole order, and what `suggest` prints."""

    candidates: list[Candidate]  # as generated (the rule order's input)
    ranked: list[tuple[Candidate, float]]  # the ranker's order, every candidate, with scores
    printed: list[Suggestion]  # the best k after previews
    previews: dict[str, Preview]  # formula -> its preview, for the shortlist
    rank_ms: float  # generating and ranking
    preview_ms: float  # previewing the shortlist and reordering


class RuleOrder:
    """Ranks by the rule baseline's order (fill from the nearest formula, then AutoSum, then the
    rest); used only when no trained ranker file exists (score = minus the rule position)."""

    common = None  # no common table: no common candidates

    def rank(self, candidates: Sequence[Candidate]) -> list[tuple[Candidate, float]]:
        scored = [(c, 0.0 - float(c.features.get("rule_pos", 99.0))) for c in candidates]
        return sorted(scored, key=lambda pair: -pair[1])


class Suggester:
    """A workbook prepared for suggestions; build it with `Suggester.open`."""

    def __init__(
        self,
        path: Path,
        workbook: Workbook,
        ranker,
        previewer: Previewer,
        model=None,
        context: BookContext | None = None,
    ) -> None:
        self.path = path
        self.workbook = workbook
        self.context = context or BookContext.from_workbook(workbook)
        self.ranker = ranker
        self.previewer = previewer
        self.model = model  # a `candidates.model.ModelSource`, or None

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        ranker: Path | None = None,
        model: Path | None = None,
        limits: ReadLimits | None = None,
        cache_dir: Path | None = None,
        max_cells: int = MAX_BOOK_CELLS,
    ) -> Suggester:
        """Read `path` once (.xlsx/.xlsm/.xls/.ods/.csv), load the ranker, the preview engine
        and the formula-prediction model in folder `model` (None: no model candidates).

        Raises `FortapError` (the reader's `SheetError` for an unreadable workbook; one error
        naming the folder for a model folder that is missing or not a model; one naming the
        cap for a package holding more than `max_cells` cells with content, counted from its
        bytes before anything is read).
        """
        from fortap.sheet.read import DEFAULT_LIMITS, read_workbook
        from fortap.sheet.sheet_part import content_cells

        path = Path(path)
        held = sum(content_cells(path).values()) if path.is_file() else 0
        if held > max_cells:
            raise FortapError(f"{path}: {held:,} cells with content; this command reads at most "
                              f"{max_cells:,} (memory grows with every cell): give a copy "
                              "holding the sheets you want")  # fmt: skip
        source = None
        if model is not None:
            from fortap.suggest.candidates.model import ModelSource

            source = ModelSource.load(model)
        if not path.is_file():
            raise FortapError(f"no such file: {path}")
        book = read_workbook(path, limits or DEFAULT_LIMITS, cache_dir)
        return cls(path, book, load_ranker(ranker), Previewer.load(book), source)

    def sheets(self) -> list[SheetInfo]:
        return [SheetInfo(s.name, s.n_rows, s.n_cols) for s in self.workbook.sheets]

    def suggest(
        self,
        sheet: str | None,
        cell: str,
        k: int = 5,
        *,
        setting: str = "sheet",
        hidden: frozenset[Place] = frozenset(),
    ) -> list[Suggestion]:
        """The best `k` formulas for `cell` (`B7`, or `Sheet1!B7` when `sheet` is None);
        `hidden` (sheet, row, col) 0-based places count as empty, in `setting`
        (`candidates.SETTINGS`)."""
        name = str(self.path)
        arg = parse_cell(cell, name)
        host = locate(arg, sheet, self.workbook.sheets, name)
        return self.ranking(Target(host.name, arg.row, arg.col), k, setting, hidden).printed

    def ranking(
        self,
        target: Target,
        k: int = 5,
        setting: str = "sheet",
        hidden: frozenset[Place] = frozenset(),
    ) -> Ranking:
        """`suggest`'s one path, with the ranker's whole order kept beside what it prints."""
        if k < 1:
            raise FortapError(f"the number of suggestions must be at least 1, got {k}")
        hidden = hidden | {(target.sheet, target.row, target.col)}
        start = time.perf_counter()
        candidates = generate(
            self.context, target, hidden, setting, model=self.model, common=self.ranker.common
        )
        ranked = self.ranker.rank(candidates)
        ranked_at = time.perf_counter()
        shortlist = ranked[: k + SHORTLIST_EXTRA]
        budget = CallBudget(self.previewer.limits.call_ms)  # shared by the shortlist's previews
        previews = [
            self.previewer.preview(
                target.sheet, target.row + 1, target.col + 1, c.formula, hidden=hidden,
                budget=budget,
            )
            for c, _ in shortlist
        ]  # fmt: skip
        order = sorted(range(len(shortlist)), key=lambda i: (previews[i].own_error, i))
        printed = [
            _suggestion(rank, shortlist[i][0], shortlist[i][1], previews[i])
            for rank, i in enumerate(order[:k], start=1)
        ]
        shown = {c.formula: p for (c, _), p in zip(shortlist, previews, strict=True)}
        end = time.perf_counter()
        return Ranking(
            candidates, ranked, printed, shown, 1000 * (ranked_at - start), 1000 * (end - ranked_at)
        )

    def current(self, sheet: str, cell: str) -> Preview:
        """The cell as formualizer computes it now: its value, or the Excel error it gives."""
        arg, host = self._cell(sheet, cell)
        return self.previewer.value(host, arg.row + 1, arg.col + 1)

    def value(self, sheet: str, cell: str) -> str | float | bool | None:
        """The cell's value as formualizer computes it now (an Excel error as its text)."""
        shown = self.current(sheet, cell)
        return shown.error if shown.error is not None else shown.value

    def set_formula(self, sheet: str, cell: str, formula: str) -> None:
        """Write an accepted formula: into the preview engine, the workbook and its context."""
        from fortap.formula import parse_formula

        arg, host = self._cell(sheet, cell)
        text = formula if formula.startswith("=") else "=" + formula
        parse_formula(text, host, (arg.row, arg.col))  # FormulaError for text that does not parse
        self.previewer.set_formula(host, arg.row + 1, arg.col + 1, text)
        shown = self.previewer.value(host, arg.row + 1, arg.col + 1)
        self.workbook = _with_cell(self.workbook, host, arg.row, arg.col, _cell(text, shown))
        self.context = BookContext.from_workbook(self.workbook)

    def _cell(self, sheet: str, cell: str):
        name = str(self.path)
        arg = parse_cell(cell, name)
        host = locate(arg, sheet, self.workbook.sheets, name) if sheet or arg.sheet else None
        if host is None:
            host = find_sheet(self.workbook.sheets[0].name, self.workbook.sheets, name)
        return arg, host.name


def load_ranker(path: Path | None):
    """The ranker in `path`; None = the default shipped with fortap, else the rule order."""
    from fortap.suggest.ranker import DEFAULT_DIR, MODEL_FILE, Ranker

    if path is None and not (Path(DEFAULT_DIR) / MODEL_FILE).exists():
        return RuleOrder()
    if path is not None and not Path(path).exists():
        raise FortapError(f"no such ranker: {where(path)}")
    return Ranker.load(path)


def _suggestion(rank: int, cand: Candidate, score: float, shown: Preview) -> Suggestion:
    return Suggestion(
        rank, cand.formula, shown.value, shown.error, cand.source, cand.reason, score, shown.note,
        shown.array,
    )  # fmt: skip


def _cell(formula: str, shown: Preview) -> Cell:
    if shown.error is not None:
        return Cell(shown.error, "error", formula)
    value = shown.value
    kind = (
        "empty" if value is None
        else "bool" if isinstance(value, bool)
        else "number" if isinstance(value, float)
        else "text"
    )  # fmt: skip
    return Cell(value, kind, formula)


def _with_cell(book: Workbook, sheet: str, row: int, col: int, cell: Cell) -> Workbook:
    sheets = []
    for s in book.sheets:
        if s.name == sheet:
            old = s.cell(row, col)
            cell = dataclasses.replace(cell, style=old.style)
            s = dataclasses.replace(
                s,
                cells={**s.cells, (row, col): cell},
                n_rows=max(s.n_rows, row + 1),
                n_cols=max(s.n_cols, col + 1),
            )
        sheets.append(s)
    return dataclasses.replace(book, sheets=tuple(sheets))
