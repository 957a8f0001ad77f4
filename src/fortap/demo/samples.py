"""The demo's sample workbooks: realistic `.xlsx` files written with openpyxl, deterministic per seed.

Eight workbooks (budget, sales, expenses, loan, grade book, inventory, population, energy) with
what real sheets have and a table reader must survive: title lines and footnotes around tables,
multi-level top headers through merged cells, indented left headers with group rows, bold
header bands, borders, fills and number formats, sheets holding two tables, and the formulas
people write (totals, differences, ratios, ROUND, IF, AVERAGE/MAX/MIN, SUMIF/COUNTIF, PMT,
anchored references, formulas dragged down and right).

openpyxl writes formulas without their values, unlike a workbook saved by Excel. The formualizer
engine recalculates the saved bytes and writes each formula's cached `<v>`, so a reader sees both
the formula and its value. The zip is then rewritten with fixed timestamps, so the same seed
gives byte-identical files.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import formualizer
from openpyxl import Workbook
from openpyxl.writer.excel import ExcelWriter

from fortap.demo.expense_books import expenses, loan
from fortap.demo.finance_books import budget, sales
from fortap.demo.record_books import energy, gradebook, inventory, population

BOOKS: dict[str, Callable[[random.Random], Workbook]] = {
    "budget": budget,
    "sales": sales,
    "expenses": expenses,
    "loan": loan,
    "gradebook": gradebook,
    "inventory": inventory,
    "population": population,
    "energy": energy,
}
STAMP = dt.datetime(2024, 7, 1, 9, 0, 0)  # documents' created/modified time and every zip entry's


@dataclass(frozen=True)
class SamplesConfig:
    """Which sample workbooks to write and from which seed."""

    seed: int = 0  # numbers in the books are drawn from this seed (one stream per book)
    books: tuple[str, ...] = tuple(BOOKS)  # names from `BOOKS`, written in this order

    def __post_init__(self) -> None:
        unknown = [b for b in self.books if b not in BOOKS]
        if unknown:
            raise ValueError(f"SamplesConfig.books: unknown {unknown}; known: {sorted(BOOKS)}")
        if len(set(self.books)) != len(self.books):
            raise ValueError(f"SamplesConfig.books: repeated names in {self.books}")


def write_samples(out: Path, cfg: SamplesConfig = SamplesConfig()) -> list[Path]:
    """Write the sample workbooks into `out` (created if missing); return their paths in order."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in cfg.books:
        # A string seed hashes the same in every process, so each book has its own stable stream.
        book = BOOKS[name](random.Random(f"{cfg.seed}:{name}"))
        path = out / f"{name}.xlsx"
        path.write_bytes(sample_bytes(book, name))
        paths.append(path)
    return paths


def sample_bytes(book: Workbook, name: str) -> bytes:
    """The `.xlsx` bytes of `book` with every formula's cached value, byte-stable."""
    book.properties.creator = "fortap demo"
    book.properties.created = book.properties.modified = STAMP
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        # ExcelWriter directly: `openpyxl.save_workbook` would stamp the current time.
        ExcelWriter(book, archive).save()
    result = formualizer.recalculate_xlsx_bytes(
        raw.getvalue(), deterministic_timestamp_utc=STAMP.replace(tzinfo=dt.UTC)
    )
    summary = result["summary"]
    # The recipes are ours: a formula that errs or calls an unknown function is a bug in them.
    assert summary["total_errors"] == 0, (
        f"{name}: formulas evaluate to errors {summary['error_summary']}"
    )
    assert not summary["unknown_functions"], (
        f"{name}: unknown functions {summary['unknown_functions']}"
    )
    return _stable_zip(result["bytes"])


def _stable_zip(data: bytes) -> bytes:
    """Rewrite a zip with fixed entry timestamps, keeping entry order and contents."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            info = zipfile.ZipInfo(item.filename, date_time=STAMP.timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            dst.writestr(info, src.read(item.filename))
    return out.getvalue()
