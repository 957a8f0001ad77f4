"""The top-level `fortap --help` speaks to a user and lists the commands in pipeline order;
options name what they take; printed tables keep their width off a terminal; progress bars show
the time left at a terminal only."""

from __future__ import annotations

import io
import re
import time

import typer
from rich.console import Console
from rich.table import Table as RichTable
from typer.testing import CliRunner

from fortap.cli import COMMAND_ORDER, app
from fortap.console import FILE_WIDTH, progress, stdout_console


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


def help_commands(output: str) -> list[str]:
    """The command names of `fortap --help`'s Commands panel, top to bottom."""
    panel = output.split("Commands")[1]
    return re.findall(r"^│ (\S+)", panel, flags=re.MULTILINE)  # a wrapped line starts blank


def test_help_lists_the_commands_in_pipeline_order():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0, result.output
    shown = help_commands(result.output)
    assert shown[:7] == ["ingest", "formula", "build-corpus", "build-cell-types", "pretrain",
                         "finetune", "evaluate"]  # fmt: skip
    assert shown[-7:] == ["suggest", "audit", "recover", "train-ranker", "serve", "addin", "demo"]
    # the model-folder commands and the task tools sit between evaluate and suggest
    assert shown[7:-7] == ["check-model", "tune-qa", "release", "cell-types", "ask"]
    assert shown == [name for name in COMMAND_ORDER if name in shown]


def test_every_command_has_its_place_in_the_order():
    group = typer.main.get_command(app)
    registered = list(group.commands)
    assert sorted(registered) == sorted(set(registered) & set(COMMAND_ORDER))
    assert group.list_commands(None) == [n for n in COMMAND_ORDER if n in registered]


def test_app_help_names_train_ranker():
    text = " ".join(CliRunner().invoke(app, ["--help"]).output.split())
    assert "ordered by a ranker that `train-ranker` learns from workbooks" in text


def test_evaluate_names_the_options_the_task_takes(tmp_path):
    args = ["evaluate", "formula-suggestion", str(tmp_path), "-o", str(tmp_path / "out")]
    result = CliRunner().invoke(app, [*args, "--max-test", "3", "--corpus", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert result.output.strip() == (
        "error: evaluate formula-suggestion takes no --corpus, --max-test; its options are "
        "--model, --seed, --split, --ranker, --split-by, --per-book, --settings, --config, "
        "--set and --threads"
    )
    args[1] = "formula-prediction"
    result = CliRunner().invoke(app, [*args, "--split", "dev"])
    assert result.exit_code == 1, result.output
    assert result.output.strip() == (
        "error: evaluate formula-prediction takes no --split; its options are "
        "--model, --max-test, --seed, --corpus, --config, --set and --threads"
    )


def test_serve_ranker_takes_a_folder(tmp_path):
    text = " ".join(CliRunner().invoke(app, ["serve", "--help"]).output.replace("│", "").split())
    assert "--ranker <path> A ranker folder (model.txt, features.json;" in text
    model_txt = tmp_path / "model.txt"
    model_txt.write_text("tree\n")
    result = CliRunner().invoke(app, ["serve", "--ranker", str(model_txt)])
    assert result.exit_code == 1, result.output
    assert " ".join(result.output.split()) == (
        f"error: --ranker {model_txt}: not a folder (a ranker folder holds model.txt and "
        "features.json, as fortap train-ranker writes them)"
    )


def test_progress_shows_the_time_left_at_a_terminal():
    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, width=100)
    with progress("evaluate", 4, console=terminal) as update:
        update(1.5, "budget.xlsx")
        time.sleep(0.05)
        update(2, "sales.xlsx")
    text = out.getvalue()
    assert "evaluate" in text and "sales.xlsx" in text and "2/4" in text
    assert re.search(r"\d:\d\d:\d\d", text)  # the time left
    quiet = io.StringIO()  # a file: no bar, nothing printed
    with progress("evaluate", 4, console=Console(file=quiet)) as update:
        update(3, "sales.xlsx")
    assert quiet.getvalue() == ""
