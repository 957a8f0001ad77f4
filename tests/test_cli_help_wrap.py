"""At 80 columns, help text breaks lines only where rich wraps a paragraph, never mid-sentence
at a line break of the source (`cli.unwrapped`)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fortap.cli import app

WIDTH = 80


def description_lines(text: str) -> list[str]:
    """The lines between the usage line and the first box of a command's help."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))
    return [line.rstrip() for line in lines[start:end]]


@pytest.mark.parametrize("command", [info.name or info.callback.__name__
                                     for info in app.registered_commands])  # fmt: skip
def test_help_paragraphs_fill_their_lines(command, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    monkeypatch.setenv("TERM", "dumb")
    result = CliRunner().invoke(app, [command, "--help"])
    assert result.exit_code == 0, result.output
    lines = description_lines(result.output)
    for line, after in zip(lines, lines[1:], strict=False):
        if not line.strip() or not after.strip() or after.lstrip()[:1] in "-*" or after.startswith("     "):
            continue  # a paragraph ends, or a list or an indented block starts
        room = WIDTH - 2 - len(line) - 1
        first_word = after.split()[0]
        assert room < len(first_word), f"{command}: a line broken by hand before {after!r}"
