"""The `audit` command (registered on the `fortap` app in `fortap.cli`).

Only typer is imported at start-up; the engine, LightGBM and formualizer load when it runs.
Input errors are `FortapError`s, which `fortap.cli` prints as one line (exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def audit_command(
    book: Annotated[Path, typer.Argument(help="The workbook (.xlsx/.xlsm/.xls/.ods/.csv).")],
    sheet: Annotated[
        str | None, typer.Option("--sheet", help="Audit this sheet only (default: all).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    min_score: Annotated[
        float | None,
        typer.Option(
            "--min-score",
            help="Report findings scored at least this (0-1; default: the fitted threshold).",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write report.md, report.html and a PNG per sheet here (a folder that is empty "
            "or holds an earlier audit report; --overwrite empties any other).",
        ),
    ] = None,
    ranker: Annotated[
        Path | None,
        typer.Option("--ranker", help="A ranker folder (fortap train-ranker; default: shipped)."),
    ] = None,
    max_checks: Annotated[
        int, typer.Option(help="Typed numbers given previews and candidates (the rest: structure).")
    ] = 300,
    check_seconds: Annotated[
        float, typer.Option(help="Stop those checks after this many seconds (0: no limit).")
    ] = 5.0,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Empty a non-empty --out folder first (without it, a folder that is not an "
            "earlier audit's own run is refused).",
        ),
    ] = False,
) -> None:
    """Find typed numbers where a formula should be and formulas unlike their block."""
    from fortap.audit.auditor import AuditConfig, audit
    from fortap.console import progress
    from fortap.suggest.api import find_sheet, native_stderr_silenced, open_book

    _check_options(book, min_score, max_checks, check_seconds)
    if out is not None:  # checked before the audit runs, not after
        from fortap.outputs import claim_folder

        claim_folder(out, "audit", overwrite, inputs=(book,))
    given = {} if min_score is None else {"min_score": min_score}
    cfg = AuditConfig(max_checks=max_checks, check_seconds=check_seconds, **given)
    with native_stderr_silenced():
        sg = open_book(book, ranker=ranker)
        names = None if sheet is None else [find_sheet(sheet, sg.workbook.sheets, str(book)).name]
        with progress("audit", max_checks) as update:
            done = audit(sg, names, cfg, update)
    found = done.findings
    if as_json:
        doc = {"book": str(book), "typed_numbers": done.typed, "checked": done.checked,
               "formulas": done.formulas, "findings": [f.to_json() for f in found]}  # fmt: skip
        typer.echo(json.dumps(doc, indent=1))
    else:
        _print(found, book)
        typer.echo(f"{done.formulas} formulas and {done.typed} typed numbers read; "
                   f"{done.checked} typed numbers checked with candidates and previews")  # fmt: skip
    if out is not None:
        from fortap.audit.report import write_report

        shown = [s for s in sg.workbook.sheets if names is None or s.name in names]
        path = write_report(book, shown, found, out)
        if not as_json:
            typer.echo(f"report: {path}")


def _check_options(book: Path, min_score, max_checks: int, check_seconds: float) -> None:
    """Refuse a bad argument in the words of the command line, before any work."""
    from fortap.errors import FortapError

    if book.is_dir():
        raise FortapError(f"{book}: is a folder; fortap audit reads one workbook file")
    if min_score is not None and not 0 <= min_score <= 1:
        raise FortapError(f"--min-score must be between 0 and 1, got {min_score}")
    if max_checks < 0:
        raise FortapError(f"--max-checks must be >= 0, got {max_checks}")
    if not check_seconds >= 0 or check_seconds == float("inf"):  # also refuses nan
        raise FortapError(f"--check-seconds must be a number >= 0, got {check_seconds}")


def _print(found, book: Path) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    if not found:
        typer.echo(f"no finding in {book.name}")
        return
    table = Table(title=f"Audit of {escape(book.name)}", title_justify="left")
    for name in ("sheet", "cell", "kind", "score", "fix", "evidence"):
        table.add_column(name, overflow="fold")
    for f in found:
        table.add_row(escape(f.sheet), f.a1, f.kind, f"{f.score:.2f}", escape(f.fix or ""),
                      escape(f.evidence))  # fmt: skip
    Console().print(table)
