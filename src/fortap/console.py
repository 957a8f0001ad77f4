"""The console fortap prints its tables and summaries on (stdout).

On a terminal it is as wide as the terminal. Printed to a file or a pipe, rich would assume 80
columns and cut or fold every wider table (the formula-prediction comparison is about 100), so
there it is `FILE_WIDTH` wide unless the `COLUMNS` environment variable says otherwise.
Progress bars and errors keep rich's own stderr console: they are for a person at a terminal.
"""

from __future__ import annotations

import os

from rich.console import Console

FILE_WIDTH = 200  # columns when stdout is not a terminal and COLUMNS is unset


def stdout_console(**kwargs) -> Console:
    """A rich Console on stdout: the terminal's width, else `FILE_WIDTH` (see module doc)."""
    console = Console(**kwargs)
    if not console.is_terminal and "COLUMNS" not in os.environ and "width" not in kwargs:
        console.width = FILE_WIDTH
    return console
