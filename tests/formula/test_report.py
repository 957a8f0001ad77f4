"""`fortap formula` end to end, and the list summary."""

import json

from typer.testing import CliRunner

from fortap.cli import app
from fortap.formula.report import read_formula_lines, summarise


def test_cli_shows_one_formula():
    result = CliRunner().invoke(app, ["formula", "=SUM(B2:B5)/B6", "--cell", "B7"])
    assert result.exit_code == 0, result.output
    assert "prefix tokens: / SUM : B2 B5 B6" in result.output
    assert "sketch:        [START] [/] [SUM] [:] [RANGE] [RANGE] [RANGE] [END]" in result.output
    assert "ranges:        B2 B5 B6" in result.output
    assert "verdict:       keep" in result.output
    assert "R1C1:          =SUM(R[-5]C:R[-2]C)/R[-1]C" in result.output


def test_cli_reports_an_invalid_formula_in_one_line():
    result = CliRunner().invoke(app, ["formula", "=SUM(B2:B5"])
    assert result.exit_code == 1
    assert "invalid_text" in result.output


def test_cli_runs_a_list_and_writes_the_report(tmp_path):
    src = tmp_path / "formulas.txt"
    src.write_text('SUM(A1:A3)\n"IF(A1=""x"",1,2)"\n\nSheet2!A1\nSUM(A1\n=1+2\n')
    out = tmp_path / "out.json"
    result = CliRunner().invoke(app, ["formula", "--file", str(src), "--report", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["lines"] == 5 and report["parsed"] == 4
    assert report["failures"] == {"invalid_text": 1}
    assert report["verdicts"] == {"keep": 2, "cross_sheet": 1, "no_reference": 1}
    assert report["round_trip"]["identical"] == 4
    assert report["token_frequency"]["[SUM]"]["count"] == 1


def test_read_formula_lines_unquotes_csv(tmp_path):
    src = tmp_path / "f.txt"
    src.write_text('"COUNTIF(A:A,""Yes"")"\nE9/E10\n')
    assert read_formula_lines(src) == ['=COUNTIF(A:A,"Yes")', "=E9/E10"]


def test_summary_token_shares_add_up():
    s = summarise(["=A1+B1", "=SUM(A1:A2)"])
    total = sum(row["share_of_tokens"] for row in s["token_frequency"].values())
    assert abs(total - 1.0) < 1e-9
    assert s["token_frequency"]["[RANGE]"]["count"] == 4


def test_cli_without_a_formula_says_what_to_give():
    result = CliRunner().invoke(app, ["formula"])
    assert result.exit_code == 1
    assert result.output == (
        'error: give a formula, e.g. fortap formula "=SUM(B2:B5)/B6", '
        "or a list file with --file PATH\n"
    )


def test_cli_names_a_missing_list_file_in_one_line(tmp_path):
    missing = tmp_path / "missing.txt"
    result = CliRunner().invoke(app, ["formula", "--file", str(missing)])
    assert result.exit_code == 1
    assert result.output == f"error: formula list not found: {missing}\n"
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_cli_names_a_list_that_is_not_text(tmp_path):
    binary = tmp_path / "book.xlsx"
    binary.write_bytes(b"PK\x03\x04\xff\xfe\x00")
    result = CliRunner().invoke(app, ["formula", "--file", str(binary)])
    assert result.exit_code == 1
    assert result.output == f"error: formula list is not UTF-8 text: {binary}\n"
