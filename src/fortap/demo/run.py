"""`run_demo`: the whole fortap path on generated sample workbooks, one clear step after another.

Steps so far: (1) write the sample workbooks into `OUT/books/`, (2) ingest them into
`OUT/tables/` (Table JSONL + report), (3) print what was found per workbook and sheet. Later
steps (corpus, pretraining, fine-tuning, suggestions) append here in the same shape: a function
that takes the previous step's output folder and returns its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.demo.samples import SamplesConfig, write_samples
from fortap.ingest import IngestReport, run_ingest

CAPTION = (
    "headers: top header rows, left header columns; depth: top/left header tree levels; "
    "formulas: formula cells in the table / in its sheet"
)


@dataclass(frozen=True)
class DemoConfig:
    """What the demo runs on."""

    samples: SamplesConfig = SamplesConfig()  # which sample workbooks, from which seed
    workers: int = 1  # ingest worker processes

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"DemoConfig.workers must be >= 1, got {self.workers}")


@dataclass(frozen=True)
class DemoResult:
    """Where each step left its output."""

    books: tuple[Path, ...]
    ingest: IngestReport


def run_demo(
    out: Path, cfg: DemoConfig = DemoConfig(), console: Console | None = None
) -> DemoResult:
    """Run the demo steps into `out` and print a summary of each."""
    console = console or Console()
    start = time.perf_counter()
    books = step_books(out / "books", cfg, console)
    report = step_ingest(books, out / "tables", cfg, console)
    console.print(found_table(report))
    console.print(f"demo finished in {time.perf_counter() - start:.1f}s; output in {out}")
    return DemoResult(tuple(books), report)


def step_books(folder: Path, cfg: DemoConfig, console: Console) -> list[Path]:
    """Step 1: write the sample workbooks."""
    t0 = time.perf_counter()
    books = write_samples(folder, cfg.samples)
    took = time.perf_counter() - t0
    console.print(
        f"[bold]1. sample workbooks[/bold]: {len(books)} written to {folder} in {took:.2f}s"
    )
    return books


def step_ingest(books: list[Path], tables: Path, cfg: DemoConfig, console: Console) -> IngestReport:
    """Step 2: read the workbooks, detect their tables, write Table JSONL."""
    console.print(f"[bold]2. ingest[/bold]: {len(books)} workbooks -> {tables}")
    return run_ingest(books, tables, workers=cfg.workers)


def found_table(report: IngestReport) -> RichTable:
    """Step 3: one row per detected table (or per sheet without one, or per skipped file)."""
    view = RichTable(title="3. tables found", title_justify="left", caption=CAPTION)
    view.add_column("book", no_wrap=True, overflow="ellipsis", max_width=10)
    view.add_column("sheet", no_wrap=True, overflow="ellipsis", max_width=12)
    for name in ("region", "headers", "depth", "formulas"):
        view.add_column(name, no_wrap=True, justify="right", min_width=len(name))
    # the title or first note, cut to whatever width is left
    view.add_column("context", no_wrap=True, overflow="ellipsis", max_width=17)
    for file in report.files:
        book = Path(file.path).stem
        if file.status != "ok":
            view.add_row(book, "-", "skipped", "", "", "", f"{file.reason}: {file.message}")
            continue
        for sheet in file.sheets:
            if sheet.error or not sheet.tables:
                note = sheet.error or "no table found"
                view.add_row(book, sheet.name, "-", "", "", f"-/{sheet.formula_cells}", note)
            for t in sheet.tables:
                view.add_row(
                    book,
                    sheet.name,
                    t.region,
                    f"{t.top_header_rows}r {t.left_header_cols}c",
                    f"{t.top_depth}/{t.left_depth}",
                    f"{t.formula_cells}/{sheet.formula_cells}",
                    t.context or "",
                )
    return view
