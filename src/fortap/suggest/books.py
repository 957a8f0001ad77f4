"""Which workbooks a ranker trains and is evaluated on, and which of their cells are targets.

- Files: every .xlsx/.xlsm/.xls/.ods under the given paths, each workbook once: files sharing a
  `fortap.corpus.split.book_key` (an EUSES book as .xlsx and as .xls) keep one copy, chosen as
  the corpus chooses (`canonical_books`: a native file before a converted one, then the
  shortest path).
- Side: the formula-prediction split by `book_key` (`split_of` with the default
  `SplitConfig`), except that the three related 2050-Calculator models (`model`, `model2`,
  `rangearrayformulaesa`) all take the side of `model`. Split by sheet (`sheet_side`, the
  paper's split of Enron): the same hash and shares on the workbook's key and the sheet's name,
  so the sheets of one workbook fall on every side (and a sheet of the three linked models on
  the same side in each).
- Targets: the formula cells kept by the paper's first-five-per-row/column rule over each
  sheet's R1C1 texts (`fortap.formula.occurrences`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from fortap.corpus.split import SplitConfig, book_key, canonical_books, split_of
from fortap.errors import FortapError
from fortap.formula.occurrences import first_occurrences
from fortap.suggest.context import BookContext, Target

SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods")
LINKED = ("model", "model2", "rangearrayformulaesa")  # one model in three versions


def workbook_files(paths: Iterable[str | Path]) -> list[Path]:
    """Spreadsheet files under `paths` (files or folders), one per workbook key, sorted."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found += [f for f in sorted(p.rglob("*")) if f.suffix.lower() in SUFFIXES]
        elif p.suffix.lower() in SUFFIXES:
            found.append(p)
    canonical = canonical_books(str(f) for f in found)  # the corpus's rule, by key alone
    return sorted(Path(path) for path, kept in canonical.items() if path == kept)


def workbooks_on(paths: Sequence[str | Path], side: str, command: str, option: str) -> list[Path]:
    """`workbook_files(paths)` on `side` of the split ("all": every side), for a command that
    reads them; a `FortapError` that says why when there are none (a path that does not exist,
    no spreadsheet file, or none on the side chosen by `option`)."""
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise FortapError(f"{command}: no such file or folder: {', '.join(missing)}")
    found = workbook_files(paths)
    files = [f for f in found if side in ("all", side_of(f))]
    if not files:
        where = ", ".join(map(str, paths))
        raise FortapError(
            f"{command}: no spreadsheet file under {where}"
            if not found
            else f"{command}: {len(found)} workbook{'s' * (len(found) != 1)} under {where}, "
            f"none on the {side} side of the split ({option})"
        )
    return files


def side_of(path: str | Path, cfg: SplitConfig | None = None) -> str:
    """The workbook's side of the formula-prediction split: "train", "dev" or "test"."""
    return split_of(_key(path), cfg or SplitConfig())


def sheet_side(path: str | Path, sheet: str, cfg: SplitConfig | None = None) -> str:
    """A sheet's side of the split by sheet: "train", "dev" or "test" (module doc)."""
    return split_of(f"{_key(path)}!{sheet.casefold()}", cfg or SplitConfig())


def _key(path: str | Path) -> str:
    key = book_key(str(path))
    return LINKED[0] if key in LINKED else key


def targets_of(ctx: BookContext, limit: int = 5) -> list[Target]:
    """Target cells of a workbook (first `limit` per row/column per R1C1), sheet by sheet."""
    out = []
    for name in ctx.sheet_names():
        sc = ctx.sheets[name]
        kept = first_occurrences(
            (r, c, f.r1c1) for (r, c), f in zip(sc.cells, sc.formulas, strict=True)
        )
        out += [Target(name, r, c) for r, c in sc.cells if (r, c) in kept]
    return out


def contexts(files: Sequence[Path], errors: list[dict] | None = None):
    """(path, BookContext) for each readable file; unreadable ones are appended to `errors`
    as {"path", "error"} and skipped (a batch loses nothing else)."""
    from fortap.sheet.read import read_workbooks  # the readers (openpyxl): only when reading

    for path, book in read_workbooks(files):
        if isinstance(book, Exception):
            if errors is not None:
                errors.append({"path": str(path), "error": str(book)})
            continue
        try:
            yield path, BookContext.from_workbook(book)
        except FortapError as err:
            if errors is not None:
                errors.append({"path": str(path), "error": str(err)})
