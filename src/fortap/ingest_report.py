"""What an ingest run read: per table, sheet and file, and the run's totals (`report.json`).

`fortap.ingest` builds these while it reads; `IngestReport.to_json` is the file's layout;
`skip_lines` and `print_summary` are what the command prints at the end.
"""

from __future__ import annotations

import json
import os
import textwrap
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

    @classmethod
    def from_json(cls, d: dict) -> FileReport:
        """The report back from its `asdict` JSON (a task marker holds its files' reports)."""
        sheets = tuple(
            SheetSummary(**{**s, "tables": tuple(TableSummary(**t) for t in s["tables"])})
            for s in d["sheets"]
        )
        skipped = tuple(tuple(pair) for pair in d["skipped_sheets"])
        return cls(**{**d, "sheets": sheets, "skipped_sheets": skipped})


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


def write_report(report: IngestReport, path: Path) -> None:
    """`report.to_json()` as `json.dumps(..., indent=1)` would write it, built one file at a time
    (the whole text of a large run's report never sits in memory), through a temporary file."""
    temp = path.with_name(path.name + ".tmp")
    with temp.open("w", encoding="utf-8") as sink:
        sink.write('{\n "files": [')
        for i, file in enumerate(report.files):
            text = json.dumps(asdict(file), indent=1, ensure_ascii=False)
            sink.write(("," if i else "") + "\n" + textwrap.indent(text, "  "))
        sink.write("\n ],\n" if report.files else "],\n")
        rest = {"ignored": list(report.ignored), "totals": report.totals()}
        sink.write(json.dumps(rest, indent=1, ensure_ascii=False).removeprefix("{\n") + "\n")
    os.replace(temp, path)


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


def skip_lines(report: IngestReport) -> list[str]:
    """One line per skipped file and per sheet whose tables could not be detected, with why."""
    lines = []
    for file in report.files:
        if file.status != "ok":
            # the message usually ends by naming the file again; the line starts with its path
            message = (file.message or "").removesuffix(f" ({Path(file.path).name})")
            lines.append(f"skipped {file.path} ({file.reason}): {message}")
        lines.extend(
            f"skipped sheet {sheet.name!r} of {file.path}: {sheet.error}"
            for sheet in file.sheets
            if sheet.error
        )
    return lines


def print_summary(report: IngestReport, tables: Path) -> None:
    """Every skip, then one line of totals naming the output."""
    from fortap.console import stdout_console

    console = stdout_console()
    for line in skip_lines(report):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    t = report.totals()
    skipped = ", ".join(f"{r} {n}" for r, n in sorted(t["skipped_by_reason"].items())) or "none"
    console.print(
        f"read {t['files_read']} of {t['files']} files in {t['seconds']:.1f}s: "
        f"{t['sheets']} sheets, {t['tables']} tables, {t['formula_cells']} formula cells "
        f"({t['table_formula_cells']} inside tables); skipped: {skipped}; "
        f"wrote {tables} and {report.out / 'report.json'}",
        highlight=False,
        markup=False,
        soft_wrap=True,  # one line, however long its paths
    )
