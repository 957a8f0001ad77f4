"""Workbook de-duplication and the train/dev/test split, decided per workbook.

The shared data holds the same workbooks several times: the EUSES books as `.xlsx`
(`euses_excelint`), as the original `.xls` (`tasi/Spreadsheet Error Dataset`) and again in
`checkcell_benchmarks`; POI's tests come in `.xls` and `.xlsx` twins. The rule:

1. *Dedup key* of a workbook: its file name without the suffix, URL-unquoted (`%20` -> space),
   lower-cased, every character that is not a letter or digit removed
   (`TRAIL%20INVENTORY%20N#A850A.xls` -> `trailinventoryna850a`). A name that says nothing
   alone (all digits, or shorter than 4 characters: `1.xlsx`, `p36.xls`) is prefixed with its
   folder's key, so `Subject/1.xlsx` of two collections stay apart.
2. Workbooks sharing a key are ordered by preference: a native file (.xlsx/.xlsm/.csv/.json)
   before a LibreOffice-converted one (.xls/.ods), then the shortest path, then the
   alphabetically first. Each joins the first preferred book whose sheet names (of the sheets
   that gave tables) contain its own or are contained in them, and is a duplicate of it (no
   samples); otherwise it is canonical itself. Containment, not equality: a converted `.xls`
   often yields tables on fewer sheets than its `.xlsx` twin. Same key, unrelated sheets
   (POI's `Tables.xlsx`, sheets `Exp1`.., and EUSES's `tables.xlsx`, `Table 1`..) are two
   books: both are kept, and the key still puts them on the same side of the split.
3. *Split* of a key: `overrides[key]` when given (e.g. HiTab tables of the QA dev/test sets),
   else the first 8 bytes of sha256(seed, key) mod 1000 against the train/dev shares.

A key, never a path, decides the split, so every copy of a book lands on the same side and
evaluation never sees a training workbook.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from urllib.parse import unquote

from fortap.table.model import Table

SPLITS: tuple[str, ...] = ("train", "dev", "test")
CONVERTED = frozenset({".xls", ".ods"})
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True)
class SplitConfig:
    """Shares of the split by workbook key (test takes the rest)."""

    train: float = 0.8  # share of workbook keys in train
    dev: float = 0.1  # share in dev
    seed: int = 0  # salts the hash, so another seed gives another split
    overrides: Mapping[str, str] = field(default_factory=dict)  # key -> split, wins over the hash

    def __post_init__(self) -> None:
        if not (
            0.0 <= self.train <= 1.0 and 0.0 <= self.dev <= 1.0 and self.train + self.dev <= 1.0
        ):
            raise ValueError(
                f"SplitConfig.train and dev must be shares summing to <= 1, got {self.train}, {self.dev}"
            )
        bad = {k: v for k, v in self.overrides.items() if v not in SPLITS}
        if bad:
            key, value = next(iter(bad.items()))
            raise ValueError(
                f"SplitConfig.overrides[{key!r}] must be one of {SPLITS}, got {value!r}"
            )


def _normal(text: str) -> str:
    return _NOT_ALNUM.sub("", unquote(text).lower())


def book_key(path: str) -> str:
    """The dedup key of a workbook path (rule 1 of the module doc)."""
    p = PurePath(path)
    stem = _normal(p.stem)
    if stem.isdigit() or len(stem) < 4:
        return f"{_normal(p.parent.name)}/{stem}"
    return stem


def canonical_books(
    paths: Iterable[str], sheets: Mapping[str, Iterable[str]] | None = None
) -> dict[str, str]:
    """Every distinct path -> the canonical path of its copies (itself when it is canonical).

    `sheets` gives each path's sheet names; without it, a shared key alone makes copies.
    """
    sheets = sheets or {}
    by_key: dict[str, list[str]] = {}
    for path in dict.fromkeys(paths):
        by_key.setdefault(book_key(path), []).append(path)
    out: dict[str, str] = {}
    for group in by_key.values():
        group.sort(key=lambda p: (PurePath(p).suffix.lower() in CONVERTED, len(p), p))
        kept: list[tuple[str, frozenset[str]]] = []
        for path in group:
            names = frozenset(sheets.get(path, ()))
            same = next((c for c, s in kept if names <= s or s <= names), None)
            if same is None:
                kept.append((path, names))
            out[path] = same or path
    return out


def split_of(key: str, cfg: SplitConfig) -> str:
    """`train`, `dev` or `test` for a workbook key (rule 3 of the module doc)."""
    if key in cfg.overrides:
        return cfg.overrides[key]
    digest = hashlib.sha256(f"{cfg.seed}|{key}".encode()).digest()
    share = int.from_bytes(digest[:8], "big") % 1000 / 1000
    if share < cfg.train:
        return "train"
    return "dev" if share < cfg.train + cfg.dev else "test"


def one_copy_per_book(tables: Sequence[Table]) -> list[Table]:
    """The tables of each workbook's canonical copy only (`canonical_books` over the tables'
    book and sheet names): a workbook present as .xls and .xlsx counts once."""
    sheets: dict[str, set[str]] = {}
    for t in tables:
        sheets.setdefault(t.book, set()).add(t.sheet)
    canonical = canonical_books(sheets, sheets)
    return [t for t in tables if canonical[t.book] == t.book]
