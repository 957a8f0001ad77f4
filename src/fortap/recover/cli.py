"""The `recover` command (registered on the `fortap` app in `fortap.cli`).

Only typer is imported at start-up. Input errors are `FortapError`s, which `fortap.cli` prints
as one line (exit 1); the output file is checked before any work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

MIN_SCORE = 0.4  # `RecoverConfig.min_score`, kept here so that start-up imports no numpy


def recover_command(
    book: Annotated[Path, typer.Argument(help="The workbook (.xlsx/.xlsm/.xls/.ods/.csv).")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Write the workbook with its formulas here (.xlsx).")
    ],
    sheet: Annotated[
        str | None, typer.Option("--sheet", help="Recover this sheet only (default: all).")
    ] = None,
    min_score: Annotated[
        float, typer.Option("--min-score", help="Write only formulas scored at least this (0-1).")
    ] = MIN_SCORE,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print every formula put back as JSON.")
    ] = False,
    top: Annotated[int, typer.Option("--top", help="Print the first N (0: all).")] = 20,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace OUT when it exists.")
    ] = False,
) -> None:
    """Put formulas back where a workbook holds only their values (never changing a value)."""
    from fortap.errors import FortapError
    from fortap.outputs import atomic_path, check_file

    if book.is_dir():
        raise FortapError(f"{book}: is a folder; fortap recover reads one workbook file")
    if not 0 <= min_score <= 1:
        raise FortapError(f"--min-score must be between 0 and 1, got {min_score}")
    if top < 0:
        raise FortapError(f"--top must be >= 0, got {top}")
    check_file(out, "--out", overwrite, suffix=".xlsx")
    if out.resolve() == book.resolve():
        raise FortapError(f"--out {out}: is the workbook read; write the copy elsewhere")
    from fortap.recover import RecoverConfig, recover_book
    from fortap.sheet.export import export_xlsx
    from fortap.sheet.read import read_workbook

    wb = read_workbook(book)
    names = None if sheet is None else [_sheet_named(sheet, wb, book)]
    found = recover_book(wb, RecoverConfig(min_score=min_score), names)
    accepted = {(f.sheet, _a1(f.row, f.col)): f.formula for f in found}
    with atomic_path(out) as tmp:
        tmp.write_bytes(export_xlsx(book, wb, accepted))
    if as_json:
        rows = [{"sheet": f.sheet, "cell": _a1(f.row, f.col), "formula": f.formula,
                 "value": f.value, "evidence": f.evidence, "score": f.score,
                 "family": f.family} for f in found]  # fmt: skip
        typer.echo(json.dumps({"book": str(book), "out": str(out), "min_score": min_score,
                               "recovered": rows}, indent=1))  # fmt: skip
        return
    _print(found, book, top)
    sheets = len({f.sheet for f in found})
    typer.echo(f"{len(found)} formula{'s' * (len(found) != 1)} put back in {sheets} "
               f"sheet{'s' * (sheets != 1)}; written to {out}")  # fmt: skip


def _sheet_named(name: str, wb, book: Path) -> str:
    """The sheet `--sheet` names, matched exactly, else ignoring case; else a one-line error."""
    from fortap.errors import FortapError

    names = [s.name for s in wb.sheets]
    match = [n for n in names if n == name] or [n for n in names if n.casefold() == name.casefold()]
    if not match:
        raise FortapError(f"{book}: no sheet {name!r} (sheets: {', '.join(map(repr, names))})")
    return match[0]


def _a1(row: int, col: int) -> str:
    from fortap.sheet.model import a1

    return a1(row, col)


def _print(found, book: Path, top: int) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from fortap.formula.references import quote_sheet

    if not found:
        typer.echo(f"no formula to put back in {book.name}")
        return
    shown = found if top == 0 else found[:top]
    table = Table(title=f"Formulas recovered in {escape(book.name)}", title_justify="left")
    for name in ("cell", "formula", "score", "evidence"):
        table.add_column(name, overflow="fold")
    for f in shown:
        cell = f"{quote_sheet(f.sheet)}!{_a1(f.row, f.col)}"
        table.add_row(escape(cell), escape(f.formula), f"{f.score:.2f}", escape(f.evidence))
    Console().print(table)
    if len(shown) < len(found):
        typer.echo(f"{len(found) - len(shown)} more under these: --top 0 prints all, --json "
                   "lists every one")  # fmt: skip
