"""`run_demo`: the whole fortap path on generated sample workbooks, one clear step after another.

Steps: (1) write the sample workbooks into `OUT/books/`, (2) ingest them into `OUT/tables/`
(Table JSONL + report), (3) print what was found per workbook and sheet, (4) build the corpus
into `OUT/corpus/`, (5) pretrain a tiny encoder for a few updates into `OUT/pretrain/`,
(6) fine-tune formula prediction on it and evaluate against the rule baseline into
`OUT/formula/` (report.md, metrics.json, predictions.jsonl), (7) print the top-5 suggestions for
one held-out formula cell treated as empty, (8) the same cell through `fortap suggest`; then the
shipped models, no training: (9) type one sample sheet's cells (`models/cell-types`, the PNG
into `OUT/cell_types.png`), (10) ask two questions of its table (`models/table-qa`), each answer
with its operation and Excel formula. Each step is a function that takes the previous
step's output and returns its own; each is timed. The numbers are what a seconds-long run
gives: weak, and printed as measured.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
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
from fortap.demo.shipped_steps import step_cell_types, step_table_qa
from fortap.ingest import run_ingest
from fortap.ingest_report import IngestReport
from fortap.tasks.table_qa.ask import Answer

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
    formula: bool = True  # run steps 4-8 (corpus .. fortap suggest)
    cell_types: bool = True  # run step 9 (a sample sheet typed by the shipped cell-type model)
    table_qa: bool = True  # run step 10 (two questions to the shipped table-QA model)

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
    cell_types: Path | None = None  # the PNG of the typed sample sheet
    answers: tuple[Answer, ...] = ()  # the table-QA answers


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
        with one_thread():
            tables = out / "tables"
            corpus = step_corpus(tables, out / "corpus", console)
            encoder = step_pretrain(corpus, out / "pretrain", cfg.pretrain_steps, console)
            run = step_finetune(
                tables, encoder, out / "formula", cfg.finetune_steps, cfg.max_test, console
            )
            step_engine(*step_suggest(run, console), console)
        formula = out / "formula"
    png = step_cell_types(books, out / "cell_types.png", console) if cfg.cell_types else None
    answers = ()
    if cfg.table_qa:
        with one_thread():
            answers = step_table_qa(books, console)
    console.print(f"demo finished in {time.perf_counter() - start:.1f}s; output in {out}")
    return DemoResult(tuple(books), report, formula, png, answers)


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch on one thread inside the block; the caller's thread count comes back afterwards.

    The demo's models (a 64-wide encoder, a MiniLM-size one asked one question at a time) gain
    nothing from a second thread, and on a busy machine two threads make every op wait for the
    slower one (measured with another job running: fine-tuning 10x slower, the two questions of
    step 10 12.4s instead of 0.5s)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


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
