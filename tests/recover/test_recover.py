"""`fortap recover` on literal values-only workbooks: what it puts back, and what it never does."""

from __future__ import annotations

import openpyxl
import pytest
from typer.testing import CliRunner

from fortap.cli import app
from fortap.recover import RecoverConfig, core, recover_sheet
from fortap.sheet.model import Cell, Sheet

QTY = [3, 12, 7, 5, 9, 4]
PRICE = [2.5, 3.75, 10.0, 12.5, 99.0, 0.6]


def budget_rows() -> list[list]:
    rows: list[list] = [["item", "qty", "price", "amount"]]
    rows += [[f"item {i}", q, p, q * p] for i, (q, p) in enumerate(zip(QTY, PRICE, strict=True))]
    rows.append(["total", None, None, sum(q * p for q, p in zip(QTY, PRICE, strict=True))])
    return rows


def sheet_of(rows: list[list]) -> Sheet:
    cells = {(r, c): Cell(value=v, kind="text" if isinstance(v, str) else "number")
             for r, row in enumerate(rows) for c, v in enumerate(row) if v is not None}  # fmt: skip
    return Sheet("Budget", "b.xlsx", len(rows), 4, cells)


def test_a_dragged_product_and_its_total_come_back():
    found = {(f.row, f.col): f.formula for f in recover_sheet(sheet_of(budget_rows()))}
    assert found == {**{(r, 3): f"=B{r + 1}*C{r + 1}" for r in range(1, 7)}, (7, 3): "=SUM(D2:D7)"}


def test_values_are_never_changed_and_typed_inputs_stay_typed():
    rows = budget_rows()
    for f in recover_sheet(sheet_of(rows)):
        assert f.value == rows[f.row][f.col]
        assert f.col == 3  # qty and price are inputs: a formula reading the amount is backward


def test_a_higher_min_score_writes_less():
    everything = recover_sheet(sheet_of(budget_rows()), RecoverConfig(min_score=0.0))
    nothing = recover_sheet(sheet_of(budget_rows()), RecoverConfig(min_score=1.0))
    assert len(nothing) < len(everything)


def test_noise_gets_no_formula():
    rows = [["a", "b", "c"]] + [[17, 4031, 288], [903, 55, 7121], [64, 1930, 33], [2718, 9, 451]]
    assert recover_sheet(sheet_of(rows)) == []


def test_numbering_and_years_stay_typed():
    rows = [["year", "no."]] + [[2001 + i, 1 + i] for i in range(8)]
    assert recover_sheet(sheet_of(rows)) == []


@pytest.mark.parametrize(
    ("tpl", "unlikely"),
    [
        (("op", "+", ("ref", -1, 0), ("num", "1")), True),  # =B7+1
        (("op", "-", ("num", "12"), ("ref", 0, -1)), True),  # =12-D15
        (("op", "+", ("op", "-", ("ref", 0, -1), ("ref", 0, -2)), ("ref", 0, -1)), True),
        (("op", "*", ("ref", 0, -1), ("num", "1.05")), False),  # =C4*1.05
        (("op", "/", ("op", "-", ("ref", 0, -1), ("ref", 0, -2)), ("ref", 0, -2)), False),
        (("fn", "IFZERO", ("ref", 0, -1), ("ref", 0, -2)), True),
        (("op", "+", ("ref", 0, -1), ("abs", 0, 2)), True),  # =B7+$C$1
        (("op", "/", ("num", "3924361"), ("ref", 0, -1)), True),  # =3924361/N2
        (("op", "*", ("ref", 0, -1), ("num", "4.93333333")), True),  # a quotient, not typed
        (("op", "/", ("ref", 0, -1), ("num", "2907309923")), False),  # a typed total
    ],
)
def test_shapes_typed_tables_obey_by_chance_are_never_written(tpl, unlikely):
    assert core.unlikely(tpl) is unlikely


def test_shares_of_a_total_below_read_it_as_a_fixed_cell():
    parts = [120.0, 45.0, 80.0, 272.0]
    rows = [["item", "amount", "share"]] + [[f"p{i}", v, v / sum(parts)] for i, v in enumerate(parts)]
    rows.append(["total", sum(parts), None])
    found = {(f.row, f.col): f.formula for f in recover_sheet(sheet_of(rows))}
    assert {at: text for at, text in found.items() if at[1] == 2} == {
        (r, 2): f"=B{r + 1}/$B$6" for r in range(1, 5)
    }


def test_min_score_out_of_range_is_refused():
    with pytest.raises(ValueError, match="min_score"):
        RecoverConfig(min_score=2.0)


@pytest.fixture
def values_book(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    for row in budget_rows():
        ws.append(row)
    path = tmp_path / "values.xlsx"
    wb.save(path)
    return path


def test_the_command_writes_a_copy_with_the_formulas(values_book, tmp_path):
    out = tmp_path / "recovered.xlsx"
    result = CliRunner().invoke(app, ["recover", str(values_book), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "7 formulas put back in 1 sheet" in result.output
    ws = openpyxl.load_workbook(out)["Budget"]
    assert ws["D3"].value == "=B3*C3" and ws["D8"].value == "=SUM(D2:D7)"
    assert ws["B3"].value == 12 and ws["A8"].value == "total"  # the rest as it was
    again = CliRunner().invoke(app, ["recover", str(values_book), "-o", str(out)])
    assert again.exit_code == 1 and "exists; give --overwrite" in again.output


def test_json_lists_every_formula_with_its_evidence(values_book, tmp_path):
    out = tmp_path / "r.xlsx"
    result = CliRunner().invoke(app, ["recover", str(values_book), "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    import json

    got = json.loads(result.output)["recovered"]
    assert got[0] == {"sheet": "Budget", "cell": "D2", "formula": "=B2*C2", "value": 7.5,
                      "evidence": "reproduces the values of 5 cells of D2:D7",
                      "score": got[0]["score"], "family": "pair"}  # fmt: skip
    assert 0.5 <= got[0]["score"] <= 1.0


def test_bad_input_gets_one_line(tmp_path, values_book):
    out = tmp_path / "r.xlsx"
    for args, words in (
        (["recover", str(tmp_path), "-o", str(out)], "is a folder"),
        (["recover", str(values_book), "-o", str(tmp_path / "r.csv")], "must end in .xlsx"),
        (["recover", str(values_book), "-o", str(out), "--min-score", "3"], "--min-score"),
        (["recover", str(values_book), "-o", str(out), "--sheet", "Nope"], "Nope"),
    ):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1 and words in result.output, (args, result.output)
        assert "Traceback" not in result.output
