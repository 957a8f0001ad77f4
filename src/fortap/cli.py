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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
