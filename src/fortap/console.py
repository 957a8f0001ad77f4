"""The console fortap prints its tables and summaries on (stdout).

On a terminal it is as wide as the terminal. Printed to a file or a pipe, rich would assume 80
columns and cut or fold every wider table (the formula-prediction comparison is about 100), so
there it is `FILE_WIDTH` wide unless the `COLUMNS` environment variable says otherwise.
Progress bars and errors keep rich's own stderr console: they are for a person at a terminal
(`progress`: a bar with the time left, shown only there).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console

FILE_WIDTH = 200  # columns when stdout is not a terminal and COLUMNS is unset
Update = Callable[..., None]  # `update(completed, note="")` of `progress`


def stdout_console(**kwargs) -> Console:
    """A rich Console on stdout: the terminal's width, else `FILE_WIDTH` (see module doc)."""
    console = Console(**kwargs)
    if not console.is_terminal and "COLUMNS" not in os.environ and "width" not in kwargs:
        console.width = FILE_WIDTH
    return console


@contextmanager
def progress(label: str, total: float, console: Console | None = None) -> Iterator[Update]:
    """A progress bar with the time left, on stderr (`console`), for a loop of `total` steps:
    yields `update(completed, note)`, where `completed` may be fractional (a workbook half
    done) and `note` names the current item. Only at a terminal; in a log a bar would leave
    blank lines, so there `update` does nothing."""
    console = console or Console(stderr=True)
    if not console.is_terminal:
        yield lambda completed, note="": None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
               "{task.fields[note]}")  # fmt: skip
    # uneven items (a large workbook after small ones): estimate the speed over 5 minutes
    with Progress(*columns, console=console, transient=True, speed_estimate_period=300) as bar:
        task = bar.add_task(label, total=total, note="")

        def update(completed: float, note: str = "") -> None:
            bar.update(task, completed=completed, note=note)

        yield update
