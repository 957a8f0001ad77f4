"""What an ingest run read: per table, sheet and file, and the run's totals (`report.json`).

`fortap.ingest` builds these while it reads; `IngestReport.to_json` is the file's layout.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class TableSummary:
    """Where one detected table lies and what its headers look like."""

    region: str  # A1 range in its sheet
    top_header_rows: int
    left_header_cols: int
    top_depth: int  # levels of the top header tree
    left_depth: int  # levels of the left header tree
    context: str | None  # first context line: the title, else the first note
    formula_cells: int  # formula cells inside the table


@dataclass(frozen=True)
class SheetSummary:
    """One sheet of a file that was read; `error` is set when table detection failed on it."""

    name: str
    n_rows: int
    n_cols: int
    cells: int  # cells holding a value or a formula
    formula_cells: int
    table_formula_cells: int  # formula cells inside detected tables
    tables: tuple[TableSummary, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class FileReport:
    """What happened to one input file."""

    path: str
    status: str  # "ok" or "skipped"
    reason: str | None = None  # SheetError reason key, or "internal_error"
    message: str | None = None
    sheets: tuple[SheetSummary, ...] = ()
    skipped_sheets: tuple[tuple[str, str], ...] = ()  # (sheet name, reason), e.g. chartsheets
    seconds: float = 0.0

    @property
    def tables(self) -> int:
        return sum(len(s.tables) for s in self.sheets)


@dataclass(frozen=True)
class IngestReport:
    """Every file's outcome, in input order, and where the output went."""

    out: Path
    files: tuple[FileReport, ...]
    ignored: tuple[str, ...] = ()  # files in folders that are not spreadsheets
    seconds: float = 0.0

    @property
    def files_read(self) -> int:
        return sum(f.status == "ok" for f in self.files)

    @property
    def files_skipped(self) -> int:
        return len(self.files) - self.files_read

    def totals(self) -> dict:
        sheets = [s for f in self.files for s in f.sheets]
        return {
            "files": len(self.files),
            "files_read": self.files_read,
            "files_skipped": self.files_skipped,
            "skipped_by_reason": dict(Counter(f.reason for f in self.files if f.status != "ok")),
            "files_ignored": len(self.ignored),
            "sheets": len(sheets),
            "sheet_errors": sum(s.error is not None for s in sheets),
            "tables": sum(len(s.tables) for s in sheets),
            "cells": sum(s.cells for s in sheets),
            "formula_cells": sum(s.formula_cells for s in sheets),
            "table_formula_cells": sum(s.table_formula_cells for s in sheets),
            "seconds": round(self.seconds, 3),
        }

    def to_json(self) -> dict:
        return {
            "files": [asdict(f) for f in self.files],
            "ignored": list(self.ignored),
            "totals": self.totals(),
        }


def summarize_table(table) -> TableSummary:
    """The `TableSummary` of one detected `fortap.table.Table`."""
    return TableSummary(
        region=table.region.a1,
        top_header_rows=table.top_header_rows,
        left_header_cols=table.left_header_cols,
        top_depth=table.top_root.depth(),
        left_depth=table.left_root.depth(),
        context=table.context[0] if table.context else None,
        formula_cells=sum(c.formula is not None for row in table.cells for c in row),
    )
