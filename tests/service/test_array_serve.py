"""An array formula's round trip through `fortap serve`: suggest, accept, download."""

from __future__ import annotations

import io

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")
from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.suggest.preview_array import formulon_installed  # noqa: E402
from tests.service.serve_client import page_client  # noqa: E402
from tests.sheet.array_books import array_book, by_label, expected  # noqa: E402

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@pytest.fixture
def session(tmp_path):
    with page_client(create_app(ServeConfig(max_upload_bytes=200_000))) as client:
        data = array_book(tmp_path).read_bytes()
        r = client.post("/workbooks", files={"file": ("arrays.xlsx", data, XLSX)})
        assert r.status_code == 201, r.text
        yield client, r.json()["id"]


def _download(client, book_id):
    r = client.get(f"/workbooks/{book_id}/download")
    assert r.status_code == 200
    return openpyxl.load_workbook(io.BytesIO(r.content))


def test_an_array_formula_is_suggested_accepted_and_downloaded_as_one(session):
    client, book_id = session
    r = client.post(f"/workbooks/{book_id}/suggest", json={"sheet": "Data", "cell": "F8", "k": 5})
    assert r.status_code == 200, r.text
    found = r.json()["suggestions"]
    fill = next(s for s in found if s["formula"] == by_label(8))
    assert fill["array"] is True and fill["rank"] == 1
    if formulon_installed():
        assert (fill["value"], fill["error"]) == (expected("b"), None)

    body = {"sheet": "Data", "cell": "F8", "formula": fill["formula"]}  # as the page sends it
    r = client.post(f"/workbooks/{book_id}/cells", json=body)
    assert r.status_code == 200, r.text
    written = r.json()
    assert written["formula"] == "{" + by_label(8) + "}"
    if formulon_installed():
        assert (written["value"], written["error"]) == (expected("b"), None)
    info = client.get(f"/workbooks/{book_id}").json()
    assert info["accepted"] == [{"sheet": "Data", "cell": "F8", "formula": written["formula"]}]

    wb = _download(client, book_id)
    cell = wb["Data"]["F8"].value
    assert isinstance(cell, ArrayFormula)
    assert (cell.ref, cell.text) == ("F8", by_label(8))
    kept = wb["Data"]["D5"].value  # the upload's own array formulas and table stay
    assert isinstance(kept, ArrayFormula) and (kept.ref, kept.text) == ("D5:D12", "=C5:C12*2")
    assert list(wb["Sales"].tables) == ["Sales"]


def test_an_ordinary_formula_stays_ordinary_unless_asked(session):
    client, book_id = session
    plain = {"sheet": "Data", "cell": "G5", "formula": "=SUM(C5:C12)"}
    assert client.post(f"/workbooks/{book_id}/cells", json=plain).json()["formula"] == (
        "=SUM(C5:C12)"
    )
    asked = {"sheet": "Data", "cell": "G6", "formula": "=SUM(LEN(B5:B12))", "array": True}
    written = client.post(f"/workbooks/{book_id}/cells", json=asked).json()
    assert written["formula"] == "{=SUM(LEN(B5:B12))}"
    if formulon_installed():
        assert written["value"] == 8.0  # eight one-letter names
    wb = _download(client, book_id)
    assert wb["Data"]["G5"].value == "=SUM(C5:C12)"
    h6 = wb["Data"]["G6"].value
    assert isinstance(h6, ArrayFormula) and (h6.ref, h6.text) == ("G6", "=SUM(LEN(B5:B12))")
