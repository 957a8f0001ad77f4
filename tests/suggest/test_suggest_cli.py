"""`fortap suggest` and `fortap train-ranker` through typer's CliRunner: output and bad input."""

from __future__ import annotations

import json
import struct

import pytest
from typer.testing import CliRunner

from fortap.cli import app

from ..sheet.sheet_builders import ole_file
from .engine_books import sales_book


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return sales_book(tmp_path_factory.mktemp("cli") / "sales.xlsx")


def run(*args):
    """Invoke `fortap` with a wide terminal, so one-line messages are not wrapped."""
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def error_of(*args) -> str:
    result = run(*args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return result.output.strip()


def test_total_row_top_suggestion_table(book):
    result = run("suggest", book, "Sales!B6", "--top", "3")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].strip() == "Suggestions for Sales!B6 of sales.xlsx"
    first = next(line for line in lines if line.startswith("│ 1 "))
    cells = [c.strip() for c in first.strip("│").split("│")]
    assert cells == ["1", "=SUM(B2:B5)", "350", "template", "SUM of the 4 numbers above"]
    assert sum(line.startswith("│ ") for line in lines) == 3


def test_json_shape(book):
    result = run("suggest", book, "B6", "--sheet", "Sales", "--json", "--top", "2")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert {k: out[k] for k in ("book", "sheet", "cell")} == {
        "book": str(book),
        "sheet": "Sales",
        "cell": "B6",
    }
    assert [s["rank"] for s in out["suggestions"]] == [1, 2]
    top = out["suggestions"][0]
    assert set(top) == {
        "rank", "formula", "value", "error", "source", "reason", "score", "note", "array"
    }  # fmt: skip
    assert (top["formula"], top["value"], top["error"], top["source"], top["reason"]) == (
        "=SUM(B2:B5)",
        350.0,
        None,
        "template",
        "SUM of the 4 numbers above",
    )
    assert isinstance(top["score"], float)


def test_quoted_sheet_name_and_sheet_option_agree(book):
    a = json.loads(run("suggest", book, "'My Sheet'!B5", "--json").output)
    b = json.loads(run("suggest", book, "B5", "--sheet", "My Sheet", "--json").output)
    assert a == b
    assert a["suggestions"][0]["formula"] == "=SUM(B2:B4)"
    assert a["suggestions"][0]["value"] == 1300.0


def test_title_quotes_a_sheet_name_with_spaces(book):
    result = run("suggest", book, "B5", "--sheet", "My Sheet", "--top", "1")
    assert result.output.splitlines()[0].strip() == "Suggestions for 'My Sheet'!B5 of sales.xlsx"


def test_a_formula_cell_is_hidden_first(book):
    out = json.loads(run("suggest", book, "Sales!D3", "--json").output)
    top = out["suggestions"][0]
    assert (top["formula"], top["value"], top["source"]) == ("=B3+C3", 175.0, "copy")
    assert top["reason"] == "as in D2:D5, 3 cells filled down"


def test_error_preview_shown(book):
    out = json.loads(run("suggest", book, "Sales!E6", "--json", "--top", "10").output)
    shown = {s["formula"]: (s["value"], s["error"]) for s in out["suggestions"]}
    assert shown["=C6/B6-1"] == (None, "#DIV/0!")
    assert shown["=C6+D6"] == (0.0, None)
    # errors come after every value in the shortlist
    flags = [s["error"] is not None for s in out["suggestions"]]
    assert flags == sorted(flags)


def test_empty_sheet_has_no_suggestion(book):
    result = run("suggest", book, "Notes!A1")
    assert (result.exit_code, result.output.strip()) == (
        0,
        "no suggestion for Notes!A1 of sales.xlsx",
    )
    out = json.loads(run("suggest", book, "Notes!A1", "--json").output)
    assert out["suggestions"] == []


def test_cell_without_candidates(book):
    result = run("suggest", book, "'My Sheet'!A1")
    assert (result.exit_code, result.output.strip()) == (
        0,
        "no suggestion for 'My Sheet'!A1 of sales.xlsx",
    )


@pytest.mark.parametrize(
    ("cell", "extra", "message"),
    [
        (
            "Nope!B2",
            [],
            "error: no sheet 'Nope' in sales.xlsx (sheets: 'Sales', 'My Sheet', 'Notes')",
        ),
        (
            "B2",
            ["--sheet", "Nope"],
            "error: no sheet 'Nope' in sales.xlsx (sheets: 'Sales', 'My Sheet', 'Notes')",
        ),
        (
            "Sales!Z99",
            [],
            "error: cell Z99 is outside sheet 'Sales' (used range A1:E6; suggestions go at most "
            "one row or column beyond it) (sales.xlsx)",
        ),
        (
            "Notes!B2",
            [],
            "error: cell B2 is outside sheet 'Notes' (empty; suggestions go at most one row or "
            "column beyond it) (sales.xlsx)",
        ),
        (
            "B7x",
            [],
            "error: malformed cell reference 'B7x': expected A1 text such as B7, Sheet1!B7 or "
            "'My Sheet'!B7 (sales.xlsx)",
        ),
        (
            "'Sales!B2",
            [],
            'error: malformed cell reference "\'Sales!B2": expected A1 text such as B7, '
            "Sheet1!B7 or 'My Sheet'!B7 (sales.xlsx)",
        ),
        (
            "B0",
            [],
            "error: malformed cell reference 'B0': rows run from 1 to 1048576 and columns from A "
            "to XFD (sales.xlsx)",
        ),
        (
            "Sales!B2",
            ["--sheet", "My Sheet"],
            "error: the cell names sheet 'Sales' but --sheet says 'My Sheet' (sales.xlsx)",
        ),
        ("B6", ["--top", "0"], "error: the number of suggestions must be at least 1, got 0"),
    ],
)
def test_bad_cell_arguments(book, cell, extra, message):
    assert error_of("suggest", book, cell, *extra) == message


def test_unreadable_workbooks(tmp_path):
    text = tmp_path / "notes.xlsx"
    text.write_text("not a workbook\n")
    assert error_of("suggest", text, "B2") == (
        "error: not a spreadsheet: the content is plain text, not a .xlsx workbook (notes.xlsx)"
    )
    secret = ole_file(tmp_path / "secret.xlsx", "EncryptionInfo", b"\x04\x00\x04\x00")
    assert error_of("suggest", secret, "B2") == (
        "error: workbook is password-protected (encrypted) (secret.xlsx)"
    )
    bof = struct.pack("<HH", 0x0809, 4) + b"\x00\x06\x05\x00"
    filepass = struct.pack("<HH", 0x002F, 2) + b"\x01\x00"
    old = ole_file(tmp_path / "old.xls", "Workbook", bof + filepass)
    assert error_of("suggest", old, "B2") == (
        "error: workbook is password-protected (encrypted .xls) (old.xls)"
    )
    missing = tmp_path / "missing.xlsx"
    assert error_of("suggest", missing, "B2") == f"error: no such file: {missing}"


def test_missing_ranker_and_model(book, tmp_path):
    assert error_of("suggest", book, "B6", "--ranker", tmp_path / "none") == (
        "error: no such ranker: none"
    )
    assert error_of("suggest", book, "B6", "--model", tmp_path / "m") == (
        f"error: --model {tmp_path / 'm'}: no such folder"
    )


def test_train_ranker_rejects_unknown_settings(tmp_path):
    head = (
        "error: --settings must list sheet, new-formula or paper and --sketch-label some of "
        "them, --per-book (sheet, new-formula) and --paper-per-book (paper) be >= 1 for the "
        "settings listed, and --side train or dev"
    )
    assert error_of("train-ranker", tmp_path, "-o", tmp_path / "r", "--settings", "bogus") == (
        f"{head} (got 'bogus', '', 60, 120, 'train')"
    )
    assert error_of("train-ranker", tmp_path, "-o", tmp_path / "r", "--side", "test") == (
        f"{head} (got 'sheet,new-formula,paper', '', 60, 120, 'test')"
    )
    none = error_of("train-ranker", tmp_path, "-o", tmp_path / "r", "--paper-per-book", "0")
    assert none == f"{head} (got 'sheet,new-formula,paper', '', 60, 0, 'train')"
    # the cap of a setting not trained is not read: the run starts (and finds no workbook)
    empty = f"error: train-ranker: no spreadsheet file under {tmp_path}"
    unused = ("-o", tmp_path / "r", "--settings", "sheet", "--paper-per-book", "0")
    assert error_of("train-ranker", tmp_path, *unused) == empty
    unused = ("-o", tmp_path / "r", "--settings", "paper", "--per-book", "0")
    assert error_of("train-ranker", tmp_path, *unused) == empty
    dev = sales_book(tmp_path / "book6.xlsx")  # on the dev side of the split (by its key)
    assert error_of("train-ranker", dev, "-o", tmp_path / "r") == (
        f"error: train-ranker: 1 workbook under {dev}, none on the train side of the split (--side)"
    )
    assert error_of("train-ranker", tmp_path / "typo", "-o", tmp_path / "r") == (
        f"error: train-ranker: no such file or folder: {tmp_path / 'typo'}"
    )
    bad = error_of("train-ranker", tmp_path, "-o", tmp_path / "r", "--sketch-label", "papr")
    assert bad == f"{head} (got 'sheet,new-formula,paper', 'papr', 60, 120, 'train')"
    args = ("-o", tmp_path / "r", "--settings", "sheet", "--sketch-label", "paper")
    assert (
        error_of("train-ranker", tmp_path, *args)
        == f"{head} (got 'sheet', 'paper', 60, 120, 'train')"
    )
