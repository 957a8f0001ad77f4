"""Whether HiTab dev or test tables are in an encoder's pretraining data (`find_leaks`).

An encoder pretrained on a corpus of workbooks has seen a HiTab table when a workbook on the
corpus's training side holds it. The workbooks carry no HiTab id, so two tests:

- by id: the workbook's file stem is a dev/test table id (HiTab's annotation workbooks are
  numbered like its StatCan tables);
- by content: at least `min_share` of the table's rows (those with at least 3 distinct
  non-empty texts; at least `min_rows` of them) each appear whole within one row of one sheet:
  every text of the table row is in the sheet row (numbers compared as numbers). Whole rows,
  not loose texts: a large sheet holds most small numbers and years of any table somewhere.

`corpus_training_books(split_json)` lists a corpus's training side from its `split.json`
(`fortap.corpus.split`: workbook key -> side, key -> path), the only side pretraining trains on.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from fortap.errors import FortapError
from fortap.sheet.read import read_workbook
from fortap.tasks.table_qa.matching import to_value
from fortap.tasks.table_qa.samples import HitabSet


@dataclass(frozen=True)
class Leak:
    table_id: str
    split: str
    book: str
    sheet: str
    how: str  # "id" or "content"
    share: float  # share of the table's texts found on the sheet


def fingerprint(texts: Iterable[str]) -> set:
    """Distinct non-empty texts of a table or sheet, numbers as numbers (rounded to 6 places)."""
    found = set()
    for text in texts:
        text = str(text).strip()
        if text:
            value = to_value(text)
            found.add(round(value, 6) if isinstance(value, float) else value)
    return found


def corpus_training_books(split_json: str | Path, base: str | Path | None = None) -> list[Path]:
    """The training-side workbooks of a corpus's split.json (paths resolved from `base`,
    default the repository root the paths are written from)."""
    path = Path(split_json)
    try:
        split = json.loads(path.read_text())
        canonical, sides = split["canonical"], split["splits"]
    except (OSError, json.JSONDecodeError, KeyError) as err:
        raise FortapError(f"cannot read the corpus split {path}: {err}") from None
    root = Path(base) if base is not None else Path.cwd()
    return [root / canonical[key] for key, side in sorted(sides.items()) if side == "train"]


def row_prints(rows: Iterable[Iterable[str]], least: int = 1) -> list[frozenset]:
    """Each row's distinct texts (`fingerprint`), rows with fewer than `least` left out."""
    found = [frozenset(fingerprint(row)) for row in rows]
    return [row for row in found if len(row) >= least]


def sheet_rows(sheet) -> list[list[str]]:
    rows: dict[int, list[str]] = defaultdict(list)
    for (r, _), cell in sheet.cells.items():
        rows[r].append(cell.text)
    return list(rows.values())


def held_share(table_rows: Sequence[frozenset], rows: Sequence[frozenset]) -> float:
    """Share of `table_rows` contained whole in some row of `rows`."""
    holders: dict[object, set[int]] = defaultdict(set)
    for i, row in enumerate(rows):
        for text in row:
            holders[text].add(i)
    held = 0
    for row in table_rows:
        common = set.intersection(*(holders.get(text, set()) for text in row))
        held += bool(common)
    return held / len(table_rows) if table_rows else 0.0


def find_leaks(
    books: Sequence[str | Path], hitab: HitabSet, splits: Sequence[str] = ("dev", "test"),
    min_share: float = 0.5, min_rows: int = 3,
) -> tuple[list[Leak], dict[str, str]]:  # fmt: skip
    """Dev/test tables held by `books` (see module doc), and the workbooks that could not be
    read (path -> why)."""
    tables = {s.table_id: split for split in splits for s in hitab.samples(split)}
    prints = {tid: row_prints(([c.text for c in row] for row in hitab.table(tid).cells), 3)
              for tid in tables}  # fmt: skip
    prints = {tid: rows for tid, rows in prints.items() if len(rows) >= min_rows}
    leaks: list[Leak] = []
    unread: dict[str, str] = {}
    for book in books:
        book = Path(book)
        if book.stem in tables:
            leaks.append(Leak(book.stem, tables[book.stem], str(book), "", "id", 1.0))
        try:
            workbook = read_workbook(book)
        except FortapError as err:
            unread[str(book)] = str(err)
            continue
        for sheet in workbook.sheets:
            rows = row_prints(sheet_rows(sheet))
            texts = frozenset().union(*rows) if rows else frozenset()
            for tid, table_rows in prints.items():
                if sum(r <= texts for r in table_rows) < min_share * len(table_rows):
                    continue  # cheap test first: the rows' texts must be on the sheet at all
                share = held_share(table_rows, rows)
                if share >= min_share:
                    leaks.append(Leak(tid, tables[tid], str(book), sheet.name, "content", share))
    return leaks, unread


BOOKS_FILE = "pretraining_books.json"  # beside an encoder: its training-side workbooks


def encoder_books(
    name: str, checkpoint: str | Path | None, base: str | Path | None = None
) -> list[Path]:
    """The workbooks an encoder of the QA comparison was pretrained on: none for `random` and
    `minilm` (no table pretraining); for `tuta`/`fortap`, the list in the checkpoint folder's
    `pretraining_books.json` (paths from `base`, default the working folder), which `fortap
    release` writes beside a released encoder. A checkpoint without it cannot be checked and
    is refused."""
    if name in ("random", "minilm"):
        return []
    path = Path(checkpoint or "") / BOOKS_FILE
    if not path.is_file():
        raise FortapError(f"{checkpoint}: no {BOOKS_FILE}, so its pretraining data cannot be "
                          "checked for HiTab dev/test tables")  # fmt: skip
    root = Path(base) if base is not None else Path.cwd()
    return [root / p for p in json.loads(path.read_text())]
