"""`WorkbookStore`: the service's uploaded workbooks, in one temporary folder, with caps.

Each upload gets a random id (`secrets.token_hex`); its file is saved under that id with the
upload's suffix, so no text from the client ever becomes part of a path. Caps, and what an
upload past one does (`put`):

- each browser (`OpenBook.owner`, the page's cookie) holds at most `max_per_client` workbooks:
  past it, that browser's least recently used workbook that holds no accepted formula left
  undownloaded goes; when none can, the upload is refused (`OverQuota`, a 429) and nobody
  else is affected;
- the store holds at most `max_books` workbooks and `max_bytes` uploaded bytes in all: past
  either, the uploader's own plain workbooks go first, then the least recently used plain
  workbook of whichever browser holds most. Only when every workbook holds unsaved work is
  the upload refused (`StoreFull`).

A user's accepted work is never thrown away, and no browser can lock the others out.
`close()` deletes the folder (the service calls it on shutdown).
"""

from __future__ import annotations

import re
import secrets
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fortap.errors import FortapError

ID_PATTERN = re.compile(r"[0-9a-f]{32}")
BROWSER_ID = re.compile(r"[0-9a-f]{32}")  # the page's cookie value (`guard.BROWSER_COOKIE`)


class UnknownWorkbook(FortapError):
    """No workbook with this id: never uploaded, deleted, or evicted to make room."""

    def __init__(self, book_id: str) -> None:
        shown = book_id if ID_PATTERN.fullmatch(book_id) else repr(book_id[:40])
        super().__init__(
            f"no workbook with id {shown}: it was never uploaded, was deleted, "
            "or was evicted to make room for newer uploads"
        )


class StoreFull(FortapError):
    """No room for an upload without evicting work that must be kept."""


class OverQuota(FortapError):
    """This browser holds its quota of workbooks, each with work that must be kept."""


@dataclass(frozen=True)
class StoreLimits:
    """Caps on what the store keeps at once."""

    max_books: int = 16  # workbooks held; the least recently used goes first
    max_bytes: int = 256 * 2**20  # uploaded bytes held, summed over workbooks
    max_per_client: int = 8  # workbooks one browser holds (its cookie; clients without share one)

    def __post_init__(self) -> None:
        for name in ("max_books", "max_bytes", "max_per_client"):
            if getattr(self, name) <= 0:
                raise ValueError(f"StoreLimits.{name} must be positive, got {getattr(self, name)}")


@dataclass
class OpenBook:
    """One uploaded workbook and its session state.

    `suggester` is the engine's `Suggester` over the stored file; `accepted` maps
    `(sheet, A1)` to the formulas the user accepted, in order, which the download writes;
    `exported` is what the last download held. `owner` is the uploading browser's cookie
    (empty for clients without one). `cell_types` caches each sheet's typed cells
    (`service.cell_types`) until a formula is written into that sheet, and `findings` each
    sheet's audit (`service.findings`) until a formula is written into any sheet; `recovered`
    each (sheet, min_score)'s recovered formulas (`service.recovered`) until a formula other
    than a recovered one is written.
    `lock` serialises calls into the engine, which keeps one formualizer workbook per session.
    """

    id: str
    name: str  # the upload's file name, for display only
    suffix: str  # ".xlsx", ".csv", ... (lower case, one of the reader's suffixes)
    path: Path
    size: int
    suggester: Any
    accepted: dict[tuple[str, str], str] = field(default_factory=dict)
    exported: dict[tuple[str, str], str] = field(default_factory=dict)
    owner: str = ""
    info: dict[str, Any] = field(default_factory=dict)
    cell_types: dict[str, dict[str, Any]] = field(default_factory=dict)
    findings: dict[str, dict[str, Any]] = field(default_factory=dict)
    recovered: dict[tuple[str, float], list[dict[str, Any]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = field(default_factory=time.monotonic)

    def unsaved(self) -> bool:
        """Whether a formula was accepted that no download has held yet."""
        return any(self.exported.get(key) != text for key, text in list(self.accepted.items()))

    def model(self) -> Any:
        """The fortap `Workbook` as the engine holds it now (`set_formula` replaces it)."""
        return self.suggester.workbook


class WorkbookStore:
    """Uploaded workbooks by id, least recently used first out; thread-safe."""

    def __init__(self, limits: StoreLimits = StoreLimits(), root: Path | None = None) -> None:
        self.limits = limits
        self.root = Path(tempfile.mkdtemp(prefix="fortap-serve-", dir=root))
        self._books: OrderedDict[str, OpenBook] = OrderedDict()
        self._lock = threading.Lock()
        self.evicted = 0

    def new_slot(self, suffix: str) -> tuple[str, Path]:
        """A fresh random id and the folder-local path its upload is written to."""
        book_id = secrets.token_hex(16)
        self.root.mkdir(mode=0o700, exist_ok=True)  # again, if an app restart closed the store
        folder = self.root / book_id
        folder.mkdir()
        return book_id, folder / f"upload{suffix}"

    def discard_slot(self, book_id: str) -> None:
        """Remove a slot whose upload failed before it became a book."""
        shutil.rmtree(self.root / book_id, ignore_errors=True)

    def put(self, book: OpenBook) -> list[str]:
        """Add `book`, evicting past a cap as the module doc says; returns the evicted ids.
        `OverQuota` or `StoreFull` when the caps cannot be kept without losing unsaved work."""
        with self._lock:
            evicted = self._room_for(book)
            for old_id in evicted:
                del self._books[old_id]
            self._books[book.id] = book
            self.evicted += len(evicted)
        for old_id in evicted:
            self.discard_slot(old_id)
        return evicted

    def _room_for(self, book: OpenBook) -> list[str]:
        """The ids to evict so that `book` fits every cap (nothing is changed yet)."""
        plain = [b for b in self._books.values() if not b.unsaved()]  # least recently used first
        mine = [b for b in self._books.values() if b.owner == book.owner]
        gone: list[OpenBook] = []
        for old in (b for b in plain if b.owner == book.owner):
            if len(mine) - len(gone) < self.limits.max_per_client:
                break
            gone.append(old)
        if len(mine) - len(gone) >= self.limits.max_per_client:
            raise OverQuota(f"this browser holds {len(mine)} workbooks, the most one browser may "
                            "(--max-workbooks-per-browser), each with accepted formulas not yet "
                            "downloaded: download or close one first")  # fmt: skip
        while not self._fits(book, gone):
            old = self._next_to_go(book, plain, gone)
            if old is None:
                raise StoreFull(
                    f"the server holds {len(self._books)} workbooks ({self._bytes():,} bytes), "
                    "each with accepted formulas not yet downloaded; download or close one, or "
                    "restart fortap serve with a larger --max-workbooks or --max-store-mb"
                )
            gone.append(old)
        return [b.id for b in gone]

    def _fits(self, book: OpenBook, gone: list[OpenBook]) -> bool:
        count = len(self._books) - len(gone) + 1
        size = self._bytes() - sum(b.size for b in gone) + book.size
        return count <= self.limits.max_books and size <= self.limits.max_bytes

    def _next_to_go(self, book: OpenBook, plain: list[OpenBook],
                    gone: list[OpenBook]) -> OpenBook | None:  # fmt: skip
        """The uploader's least recently used plain workbook, else that of the browser holding
        the most workbooks (then bytes) that still has a plain one; None when none is plain."""
        out = {b.id for b in gone}
        left = [b for b in plain if b.id not in out]
        own = [b for b in left if b.owner == book.owner]
        if own or not left:
            return own[0] if own else None
        held: dict[str, tuple[int, int]] = {}
        for b in self._books.values():
            if b.id not in out:
                count, size = held.get(b.owner, (0, 0))
                held[b.owner] = (count + 1, size + b.size)
        owner = max({b.owner for b in left}, key=lambda o: held[o])
        return next(b for b in left if b.owner == owner)

    def get(self, book_id: str) -> OpenBook:
        """The book with this id, now the most recently used; `UnknownWorkbook` if absent."""
        with self._lock:
            book = self._books.get(book_id)
            if book is None:
                raise UnknownWorkbook(book_id)
            self._books.move_to_end(book_id)
            book.last_used = time.monotonic()
            return book

    def delete(self, book_id: str) -> None:
        with self._lock:
            if self._books.pop(book_id, None) is None:
                raise UnknownWorkbook(book_id)
        self.discard_slot(book_id)

    def __contains__(self, book_id: object) -> bool:
        with self._lock:
            return book_id in self._books

    def __len__(self) -> int:
        with self._lock:
            return len(self._books)

    def total_bytes(self) -> int:
        with self._lock:
            return self._bytes()

    def close(self) -> None:
        """Forget every book and delete the store's folder."""
        with self._lock:
            self._books.clear()
        shutil.rmtree(self.root, ignore_errors=True)

    def _bytes(self) -> int:
        return sum(b.size for b in self._books.values())
