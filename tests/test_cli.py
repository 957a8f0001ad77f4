"""The top-level `fortap --help` speaks to a user, and printed tables keep their width off a
terminal."""

from __future__ import annotations

import io

from rich.table import Table as RichTable
from typer.testing import CliRunner

from fortap.cli import app
from fortap.console import FILE_WIDTH, stdout_console


def test_top_level_help_describes_the_tool():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # rich folds the help at the terminal's width
    assert "Read spreadsheets, learn from the formulas people wrote in them, predict formulas." in (
        text
    )
    assert "Start with `fortap demo`: the whole path on generated sample workbooks" in text
    assert "run_*" not in text


def test_stdout_console_is_wide_off_a_terminal(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()  # a file, as stdout is when printed to a file or a pipe
    console = stdout_console(file=out)
    assert not console.is_terminal and console.width == FILE_WIDTH == 200
    table = RichTable("system", "n", *(f"column number {i}" for i in range(6)))
    table.add_row("rules (sheet)", "83", *("100.0%" for _ in range(6)))
    console.print(table)
    lines = out.getvalue().splitlines()
    assert len(lines) == 5 and len(lines[1]) == 130  # one row per line, nothing folded or cut
    assert "│ rules (sheet) │ 83 │" in lines[3]


def test_stdout_console_follows_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    assert stdout_console(file=io.StringIO()).width == 120
