"""A sheet's own formulas type its derived cells (`own_formulas`), with or without cached values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl
import pytest

from fortap.sheet.model import Cell, Sheet, a1
from fortap.tasks.cell_types.cell_typer import SHIPPED, CellTyper
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.own_formulas import derived_by_formula
from fortap.tasks.cell_types.show import run_cell_types, type_sheet

DERIVED = CELL_TYPES.index("derived")


def one_column(formulas: dict[int, str]) -> Sheet:
    """B1:B6 typed numbers, C1:C6 the given formulas (each holding a cached 1.0)."""
    cells = {(r, 1): Cell(value=float(r + 2), kind="number") for r in range(6)}
    cells |= {(r, 2): Cell(value=1.0, kind="number", formula=f) for r, f in formulas.items()}
    return Sheet("S", "s.xlsx", 6, 3, cells)


@pytest.mark.parametrize(
    ("formula", "derived"),
    [
        ("=SUM(B1:B5)", True),
        ("=SUBTOTAL(9,B1:B5)", True),
        ("=AVERAGE(B1,B3)", True),
        ("=B2-B1", True),  # a difference
        ("=ROUND(B2/B1*100,1)", True),  # a share, rounded
        ("=IF(B1=0,0,B2/B1)", True),  # a guarded share
        ("=B1", False),  # a copy
        ("=B1*1.1", False),  # one cell scaled
        ("=SUM(B1)", False),  # one cell
        ("=Other!B1+B2", False),  # reads another sheet
        ("=VLOOKUP(B1,B1:B5,1,FALSE)+B2", False),  # a lookup: not an aggregate of the table
    ],
)
def test_the_rule(formula, derived):
    assert derived_by_formula(one_column({0: formula})) == ({(0, 2)} if derived else set())


@pytest.fixture(scope="module")
def typer() -> CellTyper:
    return CellTyper.load(SHIPPED)


def test_region_totals_of_the_demo_population_sheet_are_derived(tmp_path, typer):
    from fortap.demo.samples import SamplesConfig, write_samples

    (book,) = write_samples(tmp_path, SamplesConfig(books=("population",)))
    typed = type_sheet(book, None, typer)
    sheet = openpyxl.load_workbook(book).worksheets[0]
    sums_below = 0
    for row in sheet.iter_rows():
        for cell in row:
            text = cell.value if isinstance(cell.value, str) else ""
            m = re.fullmatch(r"=SUM\(([A-Z]+)(\d+):\1(\d+)\)", text)
            if m and int(m.group(2)) > cell.row:  # a region's total of the states below it
                sums_below += 1
                at = (typed.rows.index(cell.row - 1), typed.cols.index(cell.column - 1))
                assert typed.types[at] == DERIVED, cell.coordinate
                assert at in typed.by_formula
    assert sums_below >= 12  # four regions, three summed columns


def test_an_openpyxl_budget_without_cached_values_is_computed_and_typed(tmp_path, typer):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Budget"
    ws.append(["Budget 2024"])
    ws.append(["Item", "Q1", "Q2", "Q3", "Q4", "Year"])
    for i, item in enumerate(["Rent", "Salaries", "Travel", "Supplies", "Software", "Ads"]):
        r = 3 + i
        ws.append([item, 100 + i, 110 + i, 120 + 2 * i, 130 + i, f"=SUM(B{r}:E{r})"])
    ws.append(["Total"] + [f"=SUM({c}3:{c}8)" for c in "BCDEF"])
    book = tmp_path / "budget.xlsx"
    wb.save(book)
    sums = {(r, c) for r in range(2, 9) for c in range(1, 6) if r == 8 or c == 5}
    assert len(sums) == 11

    typed = run_cell_types(book, None, None, None, as_json=True)
    got = {(typed.row(r), typed.col(c)): k for (r, c), k in typed.types.items()}
    assert {rc for rc in sums if got.get(rc) == DERIVED} == sums
    assert typed.table.cell(typed.rows.index(8), typed.cols.index(5)).text == "2835"  # computed


def test_json_names_the_cells_typed_from_their_formula(tmp_path, capsys):
    from fortap.demo.samples import SamplesConfig, write_samples

    (book,) = write_samples(tmp_path, SamplesConfig(books=("population",)))
    run_cell_types(Path(book), None, None, None, as_json=True)
    record = json.loads(capsys.readouterr().out)
    sources = {c["cell"]: c["from"] for c in record["cells"]}
    assert sources[a1(6, 1)] == "formula"  # B7, the Northeast's =SUM(B8:B11)
    assert sources[a1(7, 1)] == "model"  # B8, Maine's typed number


def test_a_sheet_past_the_cap_is_refused_naming_it(tmp_path, monkeypatch):
    from fortap.errors import FortapError
    from fortap.tasks.cell_types import show

    wb = openpyxl.Workbook()
    for _ in range(30):
        wb.active.append(list(range(10)))
    wb.save(tmp_path / "big.xlsx")
    monkeypatch.setattr(show, "MAX_TYPED_CELLS", 100)
    with pytest.raises(FortapError, match=r"has 300 cells with content; cell-types types at most 100"):
        run_cell_types(tmp_path / "big.xlsx", None, None, None, as_json=True)
