"""A preview's note reaches the user: `fortap suggest`'s table and JSON, and `serve`'s schema."""

from __future__ import annotations

import json

import openpyxl
import pytest
from rich.console import Console
from typer.testing import CliRunner

from fortap.cli import app
from fortap.service.schemas import SuggestionOut
from fortap.suggest.cli import suggestion_table
from fortap.suggest.engine import Suggestion

NOTE = "the cells it reads hold errors"


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """Sales!A1:D5: Region | Q1 | Q2 | Total (=B+C), East's Q1 an #N/A the file holds."""
    path = tmp_path_factory.mktemp("note") / "errors.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Q1", "Q2", "Total"])
    for i, (region, q1, q2) in enumerate(
        [("North", 120, 130), ("South", 80, 95), ("East", "#N/A", 160), ("West", 10, 60)], start=2
    ):
        ws.append([region, q1, q2, f"=B{i}+C{i}"])
    wb.save(path)
    return path


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def test_the_table_shows_the_note_of_a_preview_reading_errors(book):
    result = run("suggest", book, "Sales!D4", "--top", "1")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if "formula" in line and "note" in line)
    assert [c.strip() for c in header.strip("┃").split("┃")][-1] == "note"
    first = next(line for line in lines if line.startswith("│ 1 "))
    cells = [c.strip() for c in first.strip("│").split("│")]
    assert cells[:3] == ["1", "=B4+C4", "#N/A"]
    assert cells[-1] == NOTE


def test_the_json_carries_the_note(book):
    out = json.loads(run("suggest", book, "Sales!D4", "--top", "1", "--json").output)
    top = out["suggestions"][0]
    assert (top["formula"], top["error"], top["note"]) == ("=B4+C4", "#N/A", NOTE)


def test_no_note_column_when_no_preview_has_one():
    plain = [Suggestion(1, "=B2+C2", 250.0, None, "copy", "as in D3", 1.0)]
    console = Console(width=200, record=True)
    console.print(suggestion_table(plain, "S!D2"))
    header = next(line for line in console.export_text().splitlines() if "formula" in line)
    assert [c.strip() for c in header.strip("┃").split("┃")] == [
        "#", "formula", "value", "source", "reason",
    ]  # fmt: skip


def test_the_service_schema_declares_the_note():
    row = Suggestion(1, "=SUM(B2:B5)", None, None, "template", "SUM", 0.5, "not computed: x")
    assert SuggestionOut(**row.to_json()).note == "not computed: x"
    assert SuggestionOut.model_json_schema()["properties"]["note"]["anyOf"][1] == {"type": "null"}
