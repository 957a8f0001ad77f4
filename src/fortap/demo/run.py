"""`run_demo`: the whole fortap path on generated sample workbooks, one clear step after another.

Steps: (1) write the sample workbooks into `OUT/books/`, (2) ingest them into `OUT/tables/`
(Table JSONL + report), (3) print what was found per workbook and sheet, (4) build the corpus
into `OUT/corpus/`, (5) pretrain a tiny encoder for a few updates into `OUT/pretrain/`,
(6) fine-tune formula prediction on it and evaluate against the rule baseline into
`OUT/formula/` (report.md, metrics.json, predictions.jsonl), (7) print the top-5 suggestions for
one held-out formula cell treated as empty. Each step is a function that takes the previous
step's output and returns its own; each is timed. The numbers are what a seconds-long run
gives: weak, and printed as measured.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.console import stdout_console
from fortap.demo.formula_steps import (
    step_corpus,
    step_engine,
    step_finetune,
    step_pretrain,
    step_suggest,
)
from fortap.demo.samples import SamplesConfig, write_samples
from fortap.ingest import run_ingest
from fortap.ingest_report import IngestReport

CAPTION = (
    "headers: top header rows, left header columns; depth: top/left header tree levels; "
    "formulas: formula cells in the table / in its sheet"
)


@dataclass(frozen=True)
class DemoConfig:
    """What the demo runs on."""

    samples: SamplesConfig = SamplesConfig()  # which sample workbooks, from which seed
    workers: int = 1  # ingest worker processes
    pretrain_steps: int = 40  # pretraining updates of the tiny encoder
    finetune_steps: int = 600  # formula-prediction fine-tuning updates
    max_test: int = 0  # held-out formulas evaluated (0 = all)
    formula: bool = True  # run steps 4-7 (corpus .. suggestions)

    def __post_init__(self) -> None:
        if self.max_test < 0:
            raise ValueError(f"DemoConfig.max_test must be >= 0, got {self.max_test}")
        for name in ("workers", "pretrain_steps", "finetune_steps"):
            if getattr(self, name) < 1:
                raise ValueError(f"DemoConfig.{name} must be >= 1, got {getattr(self, name)}")


@dataclass(frozen=True)
class DemoResult:
    """Where each step left its output."""

    books: tuple[Path, ...]
    ingest: IngestReport
    formula: Path | None = None  # the formula-prediction output folder (report.md etc.)


def run_demo(
    out: Path, cfg: DemoConfig = DemoConfig(), console: Console | None = None
) -> DemoResult:
    """Run the demo steps into `out` and print a summary of each."""
    console = console or stdout_console()
    start = time.perf_counter()
    books = step_books(out / "books", cfg, console)
    report = step_ingest(books, out / "tables", cfg, console)
    console.print(found_table(report, console.width))
    formula = None
    if cfg.formula:
        import torch

        # a 64-wide model gains nothing from a second thread, and on a busy machine two threads
        # make every op wait for the slower one (measured: 10x slower with another job running);
        # the caller's thread count comes back afterwards
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            tables = out / "tables"
            corpus = step_corpus(tables, out / "corpus", console)
            encoder = step_pretrain(corpus, out / "pretrain", cfg.pretrain_steps, console)
            run = step_finetune(
                tables, encoder, out / "formula", cfg.finetune_steps, cfg.max_test, console
            )
            step_engine(*step_suggest(run, console), console)
        finally:
            torch.set_num_threads(threads)
        formula = out / "formula"
    console.print(f"demo finished in {time.perf_counter() - start:.1f}s; output in {out}")
    return DemoResult(tuple(books), report, formula)


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


def found_table(report: IngestReport, width: int = 80) -> RichTable:
    """Step 3: one row per detected table (or per sheet without one, or per skipped file).

    Names and context are cut to fit `width` columns (a terminal's); wider, they show more.
    """
    book_w, sheet_w, context_w = name_widths(width)
    view = RichTable(title="3. tables found", title_justify="left", caption=CAPTION)
    view.add_column("book", no_wrap=True, overflow="ellipsis", max_width=book_w)
    view.add_column("sheet", no_wrap=True, overflow="ellipsis", max_width=sheet_w)
    for name in ("region", "headers", "depth", "formulas"):
        view.add_column(name, no_wrap=True, justify="right", min_width=len(name))
    # the title or first note, cut to whatever width is left
    view.add_column("context", no_wrap=True, overflow="ellipsis", max_width=context_w)
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


def name_widths(width: int) -> tuple[int, int, int]:
    """Widest book, sheet and context cells so that the found-tables view fits `width` columns.

    The borders, padding and the four number columns take about 52; of the rest a quarter goes
    to the book name (up to 30), 30 % to the sheet name (up to 30), the remainder to the context
    (up to 80).
    """
    names = max(0, width - 52)
    book, sheet = max(6, min(30, names // 4)), max(8, min(30, names * 3 // 10))
    return book, sheet, max(8, min(80, names - book - sheet))
