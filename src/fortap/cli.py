"""The `fortap` command line: parses arguments and calls one `run_*` function per command.

Imports are lazy so that `fortap --help` and the light commands start fast (no torch).
Errors caused by input (`FortapError`) print one line and exit 1; anything else is a bug.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__.splitlines()[0])


def _fail_cleanly(fn):
    """Run `fn`; turn an input error into one red line and exit status 1."""
    from functools import wraps

    @wraps(fn)
    def wrapper(*args, **kwargs):
        from fortap.errors import FortapError

        try:
            return fn(*args, **kwargs)
        except FortapError as err:
            from rich.console import Console

            Console(stderr=True).print(f"[red]error:[/red] {err}", highlight=False)
            raise typer.Exit(1) from None

    return wrapper


@app.command()
@_fail_cleanly
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Working folder for the demo.")] = Path(
        "runs/demo"
    ),
) -> None:
    """Run the whole path on bundled sample workbooks and print what was found."""
    from fortap.demo.run import run_demo

    run_demo(out)


@app.command()
@_fail_cleanly
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Workbook files or folders.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder for Table JSONL.")],
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
) -> None:
    """Workbooks -> Table JSONL, with a per-file report of what was read or skipped and why."""
    from fortap.ingest import run_ingest

    report = run_ingest(paths, out, workers=workers)
    if report.files_read == 0:
        raise typer.Exit(1)


@app.command()
@_fail_cleanly
def pretrain(
    tables: Annotated[
        list[Path], typer.Option("--tables", help="Table JSONL / HiTab JSON files or folders.")
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Run folder (resumes if it holds checkpoints).")
    ],
    config: Annotated[str, typer.Option(help="Preset name (tiny, small) or a YAML path.")] = "tiny",
    objectives: Annotated[
        str,
        typer.Option(help="Comma-separated names from fortap.objectives.registry (TUTA's three)."),
    ] = "mlm,cell_cloze,table_context",
    steps: Annotated[int | None, typer.Option(help="Updates (overrides training.steps).")] = None,
    init: Annotated[str, typer.Option(help="random or minilm.")] = "random",
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Dotted override, e.g. optim.lr=1e-4.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Pretrain the table encoder with TUTA's objectives (MLM, cell cloze, table context)."""
    from fortap.pretrain import run_pretrain

    names = [n.strip() for n in objectives.split(",") if n.strip()]
    run_pretrain(tables, out, config, names, steps, init, set_ or [], progress)


@app.command()
@_fail_cleanly
def formula(
    text: Annotated[str | None, typer.Argument(help='One formula, e.g. "=SUM(B2:B5)/B6".')] = None,
    file: Annotated[
        Path | None, typer.Option("--file", help="A list of formulas, one per line.")
    ] = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write the list's counts as JSON here.")
    ] = None,
    sheet: Annotated[
        str | None, typer.Option("--sheet", help="Host sheet name (decides cross-sheet).")
    ] = None,
    cell: Annotated[
        str | None, typer.Option("--cell", help="Formula cell, e.g. D7 (adds the R1C1 form).")
    ] = None,
) -> None:
    """Show a formula's AST, prefix tokens, sketch, ranges and filter verdict; or run a list."""
    from fortap.formula.report import run_formula

    run_formula(text, file=file, report=report, sheet=sheet, cell=cell)


@app.command("build-corpus")
@_fail_cleanly
def build_corpus(
    tables: Annotated[
        list[Path], typer.Argument(help="Table JSONL / HiTab JSON files or folders.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Corpus folder (a rerun resumes).")],
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    seed: Annotated[int, typer.Option(help="Seeds input modes and the split.")] = 0,
    tables_per_task: Annotated[
        int, typer.Option(help="Tables per task (one shard per split each).")
    ] = 64,
    split_overrides: Annotated[
        Path | None, typer.Option(help="JSON {workbook key or path: train|dev|test}.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar and the stats.")] = True,
) -> None:
    """Tables -> ForTaP pretraining shards split by workbook, resumable, with a stats report."""
    from fortap.corpus.build import run_build_corpus

    run_build_corpus(tables, out, workers, seed, tables_per_task, split_overrides, progress)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
