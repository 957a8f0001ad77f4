"""The `suggest` and `train-ranker` commands (registered on the `fortap` app in `fortap.cli`).

Only typer is imported here at start-up; the engine, LightGBM and formualizer load when a
command runs. Input errors are `FortapError`s, which `fortap.cli` prints as one line (exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def suggest_command(
    book: Annotated[Path, typer.Argument(help="The workbook (.xlsx/.xlsm/.xls/.ods/.csv).")],
    cell: Annotated[str, typer.Argument(help="The cell: B7, Sheet1!B7 or 'My Sheet'!B7.")],
    top: Annotated[int, typer.Option("--top", help="How many suggestions to show.")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    sheet: Annotated[
        str | None,
        typer.Option("--sheet", help="The sheet, when CELL names none (default: the first)."),
    ] = None,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            help="A fine-tuned formula-prediction model folder (OUT/model of fortap finetune "
            "formula-prediction): its beam becomes candidates too.",
        ),
    ] = None,
    ranker: Annotated[
        Path | None,
        typer.Option("--ranker", help="A ranker folder (fortap train-ranker; default: shipped)."),
    ] = None,
) -> None:
    """Ranked formula suggestions for one cell, with the value each would produce."""
    from fortap.formula.references import quote_sheet
    from fortap.suggest.calc_book import native_stderr_silenced
    from fortap.suggest.cells import locate, parse_cell
    from fortap.suggest.engine import Suggester

    with native_stderr_silenced():
        suggester = Suggester.open(book, ranker=ranker, model=model)
        found = suggester.suggest(sheet, cell, top)
    arg = parse_cell(cell, str(book))
    host = locate(arg, sheet, suggester.workbook.sheets, str(book)).name
    label = f"{quote_sheet(host)}!{arg.a1} of {book.name}"
    if as_json:
        out = {"book": str(book), "sheet": host, "cell": arg.a1}
        out["suggestions"] = [s.to_json() for s in found]
        typer.echo(json.dumps(out, indent=1))
        return
    from rich.console import Console

    if not found:
        typer.echo(f"no suggestion for {label}")
        return
    Console().print(suggestion_table(found, label))


def suggestion_table(found, title: str):
    """A rich table: rank, formula, value (or error), source, reason, and a note column when a
    preview has one (why it shows what it shows: "not computed: <reason>", inputs holding
    errors, values from the file's cache)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"Suggestions for {escape(title)}", title_justify="left")
    for name, justify in (("#", "right"), ("formula", "left"), ("value", "right")):
        table.add_column(name, justify=justify)
    table.add_column("source")
    table.add_column("reason")
    notes = any(s.note for s in found)
    if notes:
        table.add_column("note")
    for s in found:
        shown = f"[red]{s.error}[/red]" if s.error else escape(format_value(s.value))
        row = [str(s.rank), escape(s.formula), shown, s.source, escape(s.reason)]
        table.add_row(*row, *([escape(s.note or "")] if notes else []))
    return table


def format_value(value) -> str:
    """A preview value as a cell would show it in General format (empty for None)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.10g}"
    return str(value)


def train_ranker_command(
    paths: Annotated[list[Path], typer.Argument(help="Workbook files or folders.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the ranker files.")],
    per_book: Annotated[
        int, typer.Option(help="Targets per workbook and setting (evenly spread).")
    ] = 60,
    paper_per_book: Annotated[
        int, typer.Option(help="Targets per workbook in the paper setting (evenly spread).")
    ] = 120,
    settings: Annotated[
        str, typer.Option(help="Comma-separated: sheet, new-formula, paper.")
    ] = "sheet,new-formula,paper",
    model: Annotated[
        Path | None,
        typer.Option(
            help="A formula-prediction model folder: its candidates and scores become "
            "features (train on --side dev: the model never trained on those workbooks)."
        ),
    ] = None,
    side: Annotated[
        str, typer.Option(help="Side of the workbook split to learn from: train or dev.")
    ] = "train",
    common: Annotated[
        bool,
        typer.Option(
            help="Also learn the formulas many workbooks write (R1C1, saved as common.json) "
            "and propose them as candidates."
        ),
    ] = False,
    sketch_label: Annotated[
        str,
        typer.Option(
            help="Comma-separated settings (of --settings) in which a candidate with the "
            "gold's sketch alone counts as half right (e.g. paper); none by default."
        ),
    ] = "",
    overwrite: Annotated[
        bool,
        typer.Option(
            help="Empty a non-empty OUT first when it is not this command's own run (otherwise "
            "refused; its own run, a ranker folder, is replaced)."
        ),
    ] = False,
) -> None:
    """Train the suggestion ranker (LightGBM lambdarank) leave-one-out on one side's workbooks."""
    from fortap.errors import FortapError
    from fortap.suggest.train import TrainConfig, train

    chosen = tuple(s.strip() for s in settings.split(",") if s.strip())
    sketched = tuple(s.strip() for s in sketch_label.split(",") if s.strip())
    unknown = [s for s in chosen if s not in ("sheet", "new-formula", "paper")]
    unknown += [s for s in sketched if s not in chosen]
    cfg = TrainConfig(
        per_book=per_book,
        paper_per_book=paper_per_book,
        settings=chosen,
        side=side,
        model=model,
        common=common,
        sketch_label=sketched,
    )
    caps = [cfg.cap(s) for s in chosen]  # only the caps of the settings trained
    if unknown or not chosen or min(caps, default=1) < 1 or side not in ("train", "dev"):
        raise FortapError(
            f"--settings must list sheet, new-formula or paper and --sketch-label some of them, "
            f"--per-book (sheet, new-formula) and --paper-per-book (paper) be >= 1 for the "
            f"settings listed, and --side train or dev (got {settings!r}, "
            f"{sketch_label!r}, {per_book}, {paper_per_book}, {side!r})"
        )
    from fortap.outputs import claim_folder

    claim_folder(out, "train-ranker", overwrite, inputs=tuple(paths))
    info = train(paths, out, cfg)
    typer.echo(
        f"ranker written to {out}: {info['queries']} queries from {info['books']} workbooks "
        f"({len(info['unreadable'])} unreadable)"
    )
