"""`Suggester`: open once, sheets, suggest (hidden own formula, error previews last), value,
set_formula, the reader's limits; and the cell argument parser."""

from __future__ import annotations

import pytest

from fortap.errors import FortapError, SheetError
from fortap.sheet.limits import ReadLimits
from fortap.suggest.cells import CellArg, CellError, parse_cell
from fortap.suggest.engine import SheetInfo, Suggester, Suggestion

from .engine_books import sales_book


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    return sales_book(tmp_path_factory.mktemp("engine") / "sales.xlsx")


@pytest.fixture(scope="module")
def sug(path):
    return Suggester.open(path)


def test_sheets(sug):
    assert sug.sheets() == [
        SheetInfo("Sales", 6, 5),
        SheetInfo("My Sheet", 5, 2),
        SheetInfo("Notes", 0, 0),
    ]


def test_total_row(sug):
    top = sug.suggest("Sales", "B6", k=1)
    assert top == [
        Suggestion(1, "=SUM(B2:B5)", 350.0, None, "template", "SUM of the 4 numbers above",
                   top[0].score)
    ]  # fmt: skip
    assert top[0].to_json() == {
        "rank": 1,
        "formula": "=SUM(B2:B5)",
        "value": 350.0,
        "error": None,
        "source": "template",
        "reason": "SUM of the 4 numbers above",
        "score": top[0].score,
        "note": None,
        "array": False,
    }


def test_sheet_in_the_cell_text(sug):
    assert sug.suggest(None, "'My Sheet'!B5", k=2) == sug.suggest("My Sheet", "B5", k=2)
    assert sug.suggest(None, "Sales!B6", k=2) == sug.suggest("sales", "B6", k=2)  # any case


def test_own_formula_hidden(sug):
    top = sug.suggest("Sales", "E3", k=1)[0]
    assert (top.formula, top.value, top.source) == ("=C3/B3-1", 0.1875, "copy")
    assert top.reason == "as in E2:E5, 3 cells filled down"


class FixedOrder:
    """A ranker that prefers the given formulas in the given order (the rest after)."""

    def __init__(self, *formulas: str, only: bool = False) -> None:
        self.formulas = formulas
        self.only = only  # drop every other candidate
        self.common = None  # no common table: the candidates of the sheet alone

    def rank(self, candidates):
        def key(c):
            return self.formulas.index(c.formula) if c.formula in self.formulas else 99

        ranked = [(c, -float(key(c))) for c in sorted(candidates, key=key)]
        return [(c, s) for c, s in ranked if not self.only or c.formula in self.formulas]


def test_error_previews_move_after_values_within_the_shortlist(path):
    sug = Suggester.open(path)
    sug.ranker = FixedOrder("=C6/B6-1", "=C6+D6", only=True)
    got = [(s.rank, s.formula, s.value, s.error, s.score) for s in sug.suggest("Sales", "E6", 5)]
    assert got == [
        (1, "=C6+D6", 0.0, None, -1.0),
        (2, "=C6/B6-1", None, "#DIV/0!", -0.0),
    ]


def test_no_candidates_is_an_empty_list(sug):
    assert sug.suggest("Notes", "A1") == []
    assert sug.suggest("My Sheet", "A1") == []  # no formula there; Sales' copies leave the sheet
    # Sales!A1: every copy would leave the sheet; the formulas as written remain, and the echo
    # of D1 (a neighbour of A1 in its row), whose "Total" A6 holds too
    got = sug.suggest("Sales", "A1", k=20)
    assert {s.source for s in got} == {"verbatim", "echo"}
    assert {s.formula for s in got if s.source == "echo"} == {"=$A$6"}


def test_value_and_set_formula(path):
    sug = Suggester.open(path)
    assert sug.value("Sales", "D2") == 250.0  # computed: openpyxl cached no value
    assert sug.value("Sales", "E5") == "#DIV/0!"
    sug.set_formula("Sales", "B6", "=SUM(B2:B5)")
    assert sug.value("Sales", "B6") == 350.0
    cell = sug.workbook.sheets[0].cell(5, 1)
    assert (cell.formula, cell.value, cell.kind) == ("=SUM(B2:B5)", 350.0, "number")
    # the accepted formula is now a copy source for its neighbour
    top = sug.suggest("Sales", "C6", k=1)[0]
    assert (top.formula, top.value, top.source, top.reason) == (
        "=SUM(C2:C5)",
        445.0,
        "copy",
        "as in B6",
    )


def test_set_formula_rejects_bad_text(sug):
    with pytest.raises(FortapError):
        sug.set_formula("Sales", "B6", "=SUM(B2:")


def test_reader_limits_give_the_reader_error(path):
    with pytest.raises(SheetError) as err:
        Suggester.open(path, limits=ReadLimits(max_cells=5))
    assert (err.value.reason, str(err.value)) == (
        "sheet_too_large",
        "sheet 'Sales' is too large: more than 5 cells, the configured limit (Sales of sales.xlsx)",
    )


def test_k_must_be_positive(sug):
    with pytest.raises(FortapError, match="at least 1"):
        sug.suggest("Sales", "B6", k=0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("B7", CellArg(None, 6, 1)),
        ("$B$7", CellArg(None, 6, 1)),
        ("Sheet1!b7", CellArg("Sheet1", 6, 1)),
        ("'My Sheet'!B7", CellArg("My Sheet", 6, 1)),
        ("'It''s'!AA10", CellArg("It's", 9, 26)),
        ("XFD1048576", CellArg(None, 1048575, 16383)),
    ],
)
def test_parse_cell(text, expected):
    assert parse_cell(text) == expected


@pytest.mark.parametrize("text", ["", "7B", "B", "Sheet1!", "!B7", "'Sheet1!B7", "B7:C8", "XFE1"])
def test_parse_cell_rejects(text):
    with pytest.raises(CellError, match="malformed cell reference"):
        parse_cell(text, "book.xlsx")


def test_the_rule_order_stands_in_when_no_ranker_file_exists(path):
    from fortap.suggest.engine import RuleOrder

    sug = Suggester.open(path)
    sug.ranker = RuleOrder()  # what `load_ranker` gives when the ranker's model.txt is missing
    top = sug.suggest("Sales", "B6", k=1)[0]
    assert (top.formula, top.source) == ("=SUM(B2:B5)", "template")  # AutoSum, the rule
