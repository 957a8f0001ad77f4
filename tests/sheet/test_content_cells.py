"""`sheet_part.content_cells`: each worksheet's cells with a value, counted from the file's bytes
before anything is parsed; and `fortap cell-types` refusing a sheet past its bound with it,
before its model loads."""

from __future__ import annotations

import io

import openpyxl
import pytest

from fortap.errors import FortapError
from fortap.sheet.sheet_part import _count, content_cells


def test_counts_valued_cells_per_sheet(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for r in range(1, 6):
        ws.cell(r, 1, r)
        ws.cell(r, 2, f"label {r}")
    ws.cell(1, 3).style = "Good"  # styled, empty: no content
    wb.create_sheet("Empty")
    wb.save(tmp_path / "book.xlsx")
    assert content_cells(tmp_path / "book.xlsx") == {"Data": 10, "Empty": 0}
    (tmp_path / "notes.csv").write_text("a,b\n1,2\n")
    assert content_cells(tmp_path / "notes.csv") == {}  # not a package: the reader judges it


def test_a_match_cut_by_a_chunk_boundary_counts_once():
    data = b"<worksheet>" + b"<c><v>1</v></c><c><is><t>x</t></is></c>" * 50
    for cut in range(11, 60):
        assert _count(data[:cut], io.BytesIO(data[cut:]), (b"v>", b"is>")) == 100


def test_cell_types_refuses_a_large_sheet_before_its_model_loads(tmp_path, monkeypatch):
    from fortap.tasks.cell_types import show

    wb = openpyxl.Workbook()
    for r in range(1, 8):
        wb.active.append([r, r * 2])
    wb.save(tmp_path / "book.xlsx")
    monkeypatch.setattr(show, "MAX_TYPED_CELLS", 10)

    def no_model(model):
        raise AssertionError("the model loaded before the size was checked")

    monkeypatch.setattr(show, "load_typer", no_model)
    with pytest.raises(FortapError, match="has 14 cells with content; cell-types types at most 10"):
        show.run_cell_types(tmp_path / "book.xlsx", None, None, None)


def test_the_engine_refuses_a_book_past_its_cap_before_reading_it(tmp_path):
    from fortap.suggest.api import open_book

    wb = openpyxl.Workbook()
    for r in range(1, 8):
        wb.active.append([r, r * 2])
    wb.save(tmp_path / "book.xlsx")
    with pytest.raises(FortapError, match="14 cells with content; this command reads at most 10"):
        open_book(tmp_path / "book.xlsx", max_cells=10)
    assert open_book(tmp_path / "book.xlsx", max_cells=14).workbook.sheets[0].name == "Sheet"
