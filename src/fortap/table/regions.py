"""Table regions in a sheet: blocks of non-empty cells, with titles and notes as their context.

A *block* is a connected set of non-empty cells (8-neighbourhood), so tables separated by an
empty row or column fall apart; a merged cell counts as non-empty over its whole area, so it
joins what it spans. Then blocks are joined (`fortap.table.blocks`): boxes that overlap; parts
over nearly the same rows split by at most `col_gap` spacer columns; a block of labels (no
values) at most `header_gap` empty rows above another block (a header split by spacer rows);
and a block going on with values after at most `body_gap` empty rows.

Small blocks are not tables (fewer than `min_rows` rows, `min_cols` columns or `min_cells`
non-empty cells). A small text block just above a table (at most `context_gap` empty rows
between, chaining upwards over several title lines) becomes that table's title; one just below
becomes a note. A table's own first row
holding a single text cell over a wider table is peeled off as its title too, and trailing
single-cell rows that read like notes ("Source: ...", "1/ ...", long sentences) as notes.
Context is title first, then notes.

A block larger than `max_rows` x `max_cols` is **cut** to its first `max_rows` rows and
`max_cols` columns (its headers are at the top-left, so the cut part is still a table), and the
cut is recorded in `TableRegion.cut`. Blocks dropped as fragments are listed in
`RegionScan.skipped` with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fortap.sheet.model import Region, Sheet
from fortap.table.blocks import (
    cell_blocks,
    join_continued,
    join_headers,
    join_overlaps,
    join_side_by_side,
)

_NOTE_START = re.compile(
    r"^\s*(source|sources|note|notes|footnote|\*|†|‡|¹|²|³|\(?\d{1,2}[)/.]\s|\(?[a-z][)/]\s|[a-z]\s)",
    re.I,
)
_NOTE_MIN_CHARS = 60  # a single-cell sentence this long under a table is a note


@dataclass(frozen=True)
class RegionConfig:
    """Limits for finding table regions."""

    max_rows: int = 256  # a taller block is cut to its first max_rows rows
    max_cols: int = 256  # a wider block is cut to its first max_cols columns
    min_rows: int = 2  # fewer rows: not a table
    min_cols: int = 2  # fewer columns: not a table
    min_cells: int = 4  # fewer non-empty cells: not a table
    context_gap: int = 2  # empty rows allowed between a table and its title or notes
    header_gap: int = (
        6  # empty rows allowed inside a header (pieces of labels above a table); set on SAUS
    )
    body_gap: int = 1  # empty rows allowed inside a table body (a block going on with values)
    col_gap: int = 1  # empty spacer columns allowed between side-by-side parts of one table
    max_context: int = 4  # context lines kept per table

    def __post_init__(self) -> None:
        for name in ("max_rows", "max_cols", "min_rows", "min_cols", "min_cells"):
            if getattr(self, name) < 1:
                raise ValueError(f"RegionConfig.{name}: must be >= 1, got {getattr(self, name)}")
        if self.min_rows > self.max_rows or self.min_cols > self.max_cols:
            raise ValueError("RegionConfig.min_rows/min_cols: must not exceed max_rows/max_cols")
        for name in ("context_gap", "max_context", "header_gap", "body_gap", "col_gap"):
            if getattr(self, name) < 0:
                raise ValueError(f"RegionConfig.{name}: must be >= 0, got {getattr(self, name)}")


@dataclass(frozen=True)
class TableRegion:
    """Where one table lies, its context text, and why it was cut (None when whole)."""

    region: Region
    context: tuple[str, ...] = ()
    cut: str | None = None


@dataclass(frozen=True)
class RegionScan:
    """The tables found in a sheet and the blocks left out, each with a reason."""

    tables: tuple[TableRegion, ...]
    skipped: tuple[tuple[Region, str], ...] = ()


def find_regions(sheet: Sheet, cfg: RegionConfig = RegionConfig()) -> RegionScan:
    """Table regions of `sheet`, top to bottom then left to right."""
    tables: list[Region] = []
    small: list[Region] = []
    blocks = join_side_by_side(join_overlaps(cell_blocks(sheet)), cfg.col_gap)
    blocks = join_headers(sheet, blocks, cfg.header_gap)
    for box, filled in join_continued(sheet, blocks, cfg.body_gap):
        if box.n_rows < cfg.min_rows or box.n_cols < cfg.min_cols or filled < cfg.min_cells:
            small.append(box)
        else:
            tables.append(box)
    titles, notes, skipped = _attach_context(sheet, small, tables, cfg)
    out: list[TableRegion] = []
    for box in sorted(tables):
        inner, title, tail = _peel(sheet, box)
        context = tuple((titles[box] + title + tail + notes[box])[: cfg.max_context])
        out.append(_cut(inner, context, cfg))
    return RegionScan(tables=tuple(out), skipped=tuple(skipped))


def _attach_context(
    sheet: Sheet, small: list[Region], tables: list[Region], cfg: RegionConfig
) -> tuple[dict[Region, list[str]], dict[Region, list[str]], list[tuple[Region, str]]]:
    """Small blocks above a table become its title lines, below it its notes; others are skipped.

    Titles are taken nearest first, so a stack of title lines chains upwards (each within
    `context_gap` empty rows of the one below it); notes chain downwards the same way.
    """
    titles: dict[Region, list[str]] = {t: [] for t in tables}
    notes: dict[Region, list[str]] = {t: [] for t in tables}
    reach_top = {t: t.top for t in tables}
    reach_bottom = {t: t.bottom for t in tables}
    gap = cfg.context_gap + 1
    rest: list[Region] = []
    for box in sorted(small, key=lambda b: -b.bottom):
        owner = next(
            (t for t in tables if _shares_cols(box, t) and 0 < reach_top[t] - box.bottom <= gap),
            None,
        )
        if owner is None:
            rest.append(box)
            continue
        titles[owner][:0] = _texts(sheet, box)
        reach_top[owner] = box.top
    skipped: list[tuple[Region, str]] = []
    for box in sorted(rest):
        owner = next(
            (t for t in tables if _shares_cols(box, t) and 0 < box.top - reach_bottom[t] <= gap),
            None,
        )
        if owner is None:
            skipped.append((box, "fragment"))
            continue
        notes[owner].extend(_texts(sheet, box))
        reach_bottom[owner] = box.bottom
    return titles, notes, skipped


def _shares_cols(a: Region, b: Region) -> bool:
    return a.left <= b.right and b.left <= a.right


def _texts(sheet: Sheet, box: Region) -> list[str]:
    """The non-empty cell texts of a block, row by row, one line per row."""
    lines = []
    for r in range(box.top, box.bottom + 1):
        parts = [sheet.cell(r, c).text.strip() for c in range(box.left, box.right + 1)]
        line = " ".join(p for p in parts if p)
        if line:
            lines.append(line)
    return lines


def _single_text(sheet: Sheet, row: int, box: Region) -> str | None:
    """The text of a row's only non-empty cell if it is text in the block's first column."""
    filled = [c for c in range(box.left, box.right + 1) if not sheet.cell(row, c).is_empty]
    if filled == [box.left] and sheet.cell(row, box.left).kind == "text":
        return sheet.cell(row, box.left).text.strip()
    return None


def _peel(sheet: Sheet, box: Region) -> tuple[Region, list[str], list[str]]:
    """Split a leading title row and trailing note rows off a table block."""
    top, bottom = box.top, box.bottom
    title: list[str] = []
    text = _single_text(sheet, top, box)
    if text is not None and bottom - top >= 2 and box.n_cols > 2:
        merge = next((m for m in sheet.merged if (m.top, m.left) == (top, box.left)), None)
        nxt = [sheet.cell(top + 1, c) for c in range(box.left, box.right + 1)]
        lone = merge is None or (merge.n_rows == 1 and merge.n_cols >= box.n_cols - 1)
        if lone and sum(not c.is_empty for c in nxt) >= 2:
            title, top = [text], top + 1
    tail: list[str] = []
    while bottom - top >= 2:
        text = _single_text(sheet, bottom, box)
        if text is None or not (_NOTE_START.match(text) or len(text) >= _NOTE_MIN_CHARS):
            break
        tail.insert(0, text)
        bottom -= 1
    return Region(top, box.left, bottom, box.right), title, tail


def _cut(box: Region, context: tuple[str, ...], cfg: RegionConfig) -> TableRegion:
    """Cut a block to the size limits, recording why."""
    reasons = []
    bottom, right = box.bottom, box.right
    if box.n_rows > cfg.max_rows:
        bottom = box.top + cfg.max_rows - 1
        reasons.append(f"{box.n_rows} rows > max_rows {cfg.max_rows}")
    if box.n_cols > cfg.max_cols:
        right = box.left + cfg.max_cols - 1
        reasons.append(f"{box.n_cols} columns > max_cols {cfg.max_cols}")
    cut = "; ".join(reasons) if reasons else None
    return TableRegion(Region(box.top, box.left, bottom, right), context, cut)
