"""The `audit` command (registered on the `fortap` app in `fortap.cli`).

Only typer is imported at start-up; the engine, LightGBM and formualizer load when it runs.
Input errors are `FortapError`s, which `fortap.cli` prints as one line (exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

AUDIT_CHECKS = 300  # `AuditConfig.max_checks`, kept here so that start-up imports no engine
MAX_AUDIT_CELLS = 300_000  # cells with content a book may hold to be audited: 1,110 MB at
# 300k, over 1,588 MB at 500k (bench/cli_fuzz.py's cap rows): under 1.5 GB


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
            help="Report findings scored at least this, of either kind (0-1; default: each "
            "kind's fitted threshold; under the score of a bare typed number, every one).",
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
        int,
        typer.Option(
            help="Typed numbers the structure did not settle given the suggestion engine's "
            "candidates, structure's picks first (the rest: structure only)."
        ),
    ] = AUDIT_CHECKS,
    check_seconds: Annotated[
        float,
        typer.Option(
            help="Safety stop: start no engine check after this many seconds (0: none); a run "
            "it stops says so, and may differ from the next."
        ),
    ] = 0.0,
    top: Annotated[
        int,
        typer.Option(
            "--top", help="Print the best N findings (0: all); --json and -o keep every one."
        ),
    ] = 20,
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

    _check_options(book, min_score, max_checks, check_seconds, top)
    if out is not None:  # checked before the audit runs, not after
        from fortap.outputs import claim_folder

        claim_folder(out, "audit", overwrite, inputs=(book,))
    given = {} if min_score is None else {"min_score": min_score}
    cfg = AuditConfig(max_checks=max_checks, check_seconds=check_seconds, **given)
    with native_stderr_silenced():
        sg = open_book(book, ranker=ranker, max_cells=MAX_AUDIT_CELLS)
        names = None if sheet is None else [find_sheet(sheet, sg.workbook.sheets, str(book)).name]
        with progress("audit", max_checks) as update:
            done = audit(sg, names, cfg, update)
    found = done.findings
    if as_json:
        options = {"max_checks": max_checks, "check_seconds": check_seconds}
        typer.echo(json.dumps({"book": str(book), **options, **done.to_json()}, indent=1))
    else:
        _print(found, book, top)
        typer.echo(f"{done.formulas} formulas and {done.typed} typed numbers read "
                   f"({done.labels} more read as year or code labels), each scored: "
                   f"{done.by_structure} by the structure alone, {done.checked} with the "
                   "suggestion engine's candidates too")  # fmt: skip
        if done.stopped:
            typer.echo(_stop_note(done, check_seconds))
    if out is not None:
        from fortap.audit.report import write_report

        shown = [s for s in sg.workbook.sheets if names is None or s.name in names]
        path = write_report(book, shown, found, out)
        if not as_json:
            typer.echo(f"report: {path}")


def _stop_note(done, check_seconds: float) -> str:
    """The line that says the safety stop cut the checks (so another run may differ)."""
    return (f"--check-seconds {check_seconds:g} stopped the checks after {done.checked} of "
            f"{done.planned}: another run may check more and find other cells")  # fmt: skip


def _check_options(book: Path, min_score, max_checks: int, check_seconds: float,
                   top: int) -> None:  # fmt: skip
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
    if top < 0:
        raise FortapError(f"--top must be >= 0, got {top}")


WIDE = 120  # console columns from which the printed table has room for the evidence too


def _print(found, book: Path, top: int) -> None:
    """The best `top` findings (0: all) as a table: cell, kind, score and fix, and the evidence
    where the console is `WIDE` (in 80 columns it folds into a column of single words)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from fortap.formula.references import quote_sheet

    if not found:
        typer.echo(f"no finding in {book.name}")
        return
    console = Console()
    wide = console.width >= WIDE
    shown = found if top == 0 else found[:top]
    table = Table(title=f"Audit of {escape(book.name)}", title_justify="left")
    for name in ("cell", "kind", "score", "fix", *(("evidence",) if wide else ())):
        table.add_column(name, overflow="fold")
    for f in shown:
        cell = escape(f"{quote_sheet(f.sheet)}!{f.a1}")
        row = [cell, f.kind, f"{f.score:.2f}", escape(f.fix or "")]
        table.add_row(*row, *((escape(f.evidence),) if wide else ()))
    console.print(table)
    if len(shown) < len(found):
        more = len(found) - len(shown)
        typer.echo(f"{more} more finding{'s' * (more != 1)} under these: --top 0 prints all, "
                   "--json and -o list every one with its evidence")  # fmt: skip
    elif not wide:
        typer.echo("evidence: --json, or -o for a report")
