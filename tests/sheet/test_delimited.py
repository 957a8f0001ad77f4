""".csv/.tsv: encoding detected, delimiter sniffed, numbers parsed."""

from __future__ import annotations

import pytest

from fortap.errors import SheetError
from fortap.sheet import Cell, read_workbook
from fortap.sheet.delimited import parse_field


def test_latin1_semicolon_csv(tmp_path):
    text = "Région;Année;Dépenses\nÎle-de-France;2019;1 234\nCôte d'Azur;2020;56,5\n" * 3
    path = tmp_path / "dépenses.csv"
    path.write_bytes(text.encode("cp1252"))
    book = read_workbook(path)
    (sheet,) = book.sheets
    assert (sheet.name, sheet.n_rows, sheet.n_cols) == ("dépenses", 9, 3)
    assert sheet.cell(0, 0) == Cell("Région", "text")
    assert sheet.cell(1, 0) == Cell("Île-de-France", "text")
    assert sheet.cell(1, 1) == Cell(2019.0, "number")
    assert sheet.cell(1, 2) == Cell("1 234", "text")  # a space-grouped number stays text
    assert sheet.cell(2, 0) == Cell("Côte d'Azur", "text")
    assert list(sheet.formula_cells()) == []


def test_utf8_comma_csv_with_quotes_and_blanks(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('name,amount,note\n"Smith, J.",1,234\n,"1,234.5",\n', encoding="utf-8")
    sheet = read_workbook(path).sheets[0]
    assert sheet.cell(1, 0) == Cell("Smith, J.", "text")
    assert sheet.cell(1, 2) == Cell(234.0, "number")
    assert sheet.cell(2, 0).is_empty
    assert sheet.cell(2, 1) == Cell(1234.5, "number")
    assert (sheet.n_rows, sheet.n_cols) == (3, 3)


def test_utf16_tsv(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_bytes("a\tb\n1.5\t-2e3\n".encode("utf-16"))
    sheet = read_workbook(path).sheets[0]
    assert [sheet.cell(0, 0).value, sheet.cell(1, 0).value, sheet.cell(1, 1).value] == [
        "a",
        1.5,
        -2000.0,
    ]


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("12", Cell(12.0, "number")),
        (" -3.5 ", Cell(-3.5, "number")),
        ("1,234,567", Cell(1234567.0, "number")),
        ("12,34", Cell("12,34", "text")),
        ("1_000", Cell("1_000", "text")),
        ("nan", Cell("nan", "text")),
        ("", None),
        ("   ", None),
    ],
)
def test_parse_field(field, expected):
    assert parse_field(field) == expected


def test_empty_csv_is_an_empty_workbook(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("\n,,\n", encoding="utf-8")
    with pytest.raises(SheetError) as err:
        read_workbook(path)
    assert (err.value.reason, str(err.value)) == (
        "empty_workbook",
        "workbook has no cells with a value or formula (empty.csv)",
    )
