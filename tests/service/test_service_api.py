"""`fortap serve`'s HTTP API through the ASGI test client: every endpoint and every error case."""

from __future__ import annotations

import io
import json

import openpyxl
import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")
from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.store import StoreLimits  # noqa: E402
from tests.service.serve_books import (  # noqa: E402
    TOTAL_CELL,
    TOTAL_FORMULA,
    TOTAL_VALUE,
    budget_bytes,
)
from tests.service.serve_client import page_client  # noqa: E402
from tests.sheet.sheet_builders import ole_file  # noqa: E402

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
NO_SUCH_ID = "0" * 32
GONE = (
    "no workbook with id {}: it was never uploaded, was deleted, "
    "or was evicted to make room for newer uploads"
)


@pytest.fixture
def client():
    with page_client(create_app(ServeConfig(max_upload_bytes=200_000))) as c:
        yield c


@pytest.fixture
def book(client) -> str:
    r = client.post("/workbooks", files={"file": ("budget.xlsx", budget_bytes(), XLSX)})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_health_counts_the_stored_workbooks(client, book):
    assert client.get("/health").json() == {
        "status": "ok",
        "workbooks": 1,
        "bytes": len(budget_bytes()),
    }


def test_upload_describes_sheets_used_ranges_and_tables(client):
    r = client.post("/workbooks", files={"file": ("budget.xlsx", budget_bytes(), XLSX)})
    assert r.status_code == 201
    body = r.json()
    assert len(body["id"]) == 32 and body["name"] == "budget.xlsx"
    assert [(s["name"], s["used_range"], s["n_rows"], s["n_cols"]) for s in body["sheets"]] == [
        ("Budget", "A1:F7", 7, 6),
        ("Notes", "A1", 1, 1),
    ]
    assert [s["tables"] for s in body["sheets"]] == [
        [{"range": "A1:F7", "header_rows": 1, "header_cols": 1}],
        [],
    ]
    assert body["accepted"] == []
    assert body["not_kept"] == [
        "cached formula values: Excel or LibreOffice recompute them when the file is opened"
    ]
    assert client.get(f"/workbooks/{body['id']}").json() == body


def test_cells_of_a_range_carry_value_formula_format_bold_and_merges(client, book):
    r = client.get(f"/workbooks/{book}/sheets/Budget", params={"range": "A6:G7"})
    assert r.status_code == 200
    body = r.json()
    assert (body["range"], body["n_rows"], body["n_cols"]) == ("A6:F7", 7, 6)
    assert [(c["a1"], c["value"], c["formula"], c["number_format"], c["bold"]) for c in body["cells"]] == [
        ("A6", "Books", None, "General", False),
        ("B6", 25.0, None, "#,##0", False),
        ("C6", 0.0, None, "#,##0", False),
        ("D6", 35.0, None, "#,##0", False),
        ("A7", "Total", None, "General", True),
        ("B7", 1660.0, "=SUM(B2:B6)", "#,##0", False),
        ("C7", 1655.0, "=SUM(C2:C6)", "#,##0", False),
        ("D7", None, None, "#,##0", False),
        ("F7", 3315.0, "=B7+C7+D7", "General", False),
    ]  # fmt: skip
    assert body["merged"] == []
    top = client.get(f"/workbooks/{book}/sheets/Budget", params={"range": "E1:H2"}).json()
    assert top["merged"] == ["E1:F1"] and top["range"] == "E1:F2"
    whole = client.get(f"/workbooks/{book}/sheets/Notes").json()
    assert [(c["row"], c["col"], c["value"]) for c in whole["cells"]] == [(1, 1, "Figures in EUR")]


def test_suggest_gives_the_total_first_with_its_value(client, book):
    r = client.post(f"/workbooks/{book}/suggest", json={"sheet": "Budget", "cell": "d7", "k": 3})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["book"], body["sheet"], body["cell"]) == ("budget.xlsx", "Budget", TOTAL_CELL)
    top = body["suggestions"][0]
    assert (top["rank"], top["formula"], top["value"], top["error"]) == (
        1,
        TOTAL_FORMULA,
        TOTAL_VALUE,
        None,
    )
    assert top["source"] and top["reason"]
    assert 1 <= len(body["suggestions"]) <= 3


def test_suggestions_are_the_engines_own(client, book, tmp_path):
    from fortap.suggest.engine import Suggester

    path = tmp_path / "budget.xlsx"
    path.write_bytes(budget_bytes())
    expected = [s.to_json() for s in Suggester.open(path).suggest("Budget", "D7", 5)]
    body = {"sheet": "Budget", "cell": "D7", "k": 5}
    assert client.post(f"/workbooks/{book}/suggest", json=body).json()["suggestions"] == expected


@pytest.mark.slow
def test_xls_upload_goes_through_libreoffice_and_downloads_as_xlsx(client, data_dir):
    path = data_dir / "checkcell_benchmarks" / "files" / "30day.xls"
    with page_client(create_app(ServeConfig())) as c:
        r = c.post("/workbooks", files={"file": (path.name, path.read_bytes())})
        assert r.status_code == 201, r.text
        body = r.json()
        assert [(s["name"], s["used_range"]) for s in body["sheets"]] == [("Inventory", "A1:H46")]
        assert body["not_kept"][0] == (
            "the .xls format: the download is the .xlsx LibreOffice converted it to, "
            "so formatting .xlsx has no place for is gone"
        )
        d = c.get(f"/workbooks/{body['id']}/download")
        assert openpyxl.load_workbook(io.BytesIO(d.content)).sheetnames == ["Inventory"]


def test_an_accepted_formula_that_errs_answers_its_error(client, book):
    r = client.post(
        f"/workbooks/{book}/cells",
        json={"sheet": "Budget", "cell": TOTAL_CELL, "formula": "=D2/0"},
    )
    assert r.status_code == 200, r.text
    assert (r.json()["value"], r.json()["error"]) == (None, "#DIV/0!")


def test_upload_suggest_accept_download_round_trip(client, book):
    top = client.post(
        f"/workbooks/{book}/suggest", json={"sheet": "Budget", "cell": TOTAL_CELL}
    ).json()["suggestions"][0]
    r = client.post(
        f"/workbooks/{book}/cells",
        json={"sheet": "Budget", "cell": TOTAL_CELL, "formula": top["formula"]},
    )
    assert r.status_code == 200, r.text
    assert r.json() == {
        "sheet": "Budget",
        "cell": TOTAL_CELL,
        "formula": TOTAL_FORMULA,
        "value": TOTAL_VALUE,
        "error": None,
    }
    cells = client.get(f"/workbooks/{book}/sheets/Budget", params={"range": "D7:F7"}).json()
    assert [(c["a1"], c["formula"], c["value"], c["accepted"]) for c in cells["cells"]] == [
        ("D7", TOTAL_FORMULA, TOTAL_VALUE, True),
        ("F7", "=B7+C7+D7", 1660 + 1655 + TOTAL_VALUE, False),  # recomputed by the engine
    ]
    assert client.get(f"/workbooks/{book}").json()["accepted"] == [
        {"sheet": "Budget", "cell": "D7", "formula": TOTAL_FORMULA}
    ]
    d = client.get(f"/workbooks/{book}/download")
    assert d.status_code == 200 and d.headers["content-type"] == XLSX
    assert d.headers["content-disposition"] == 'attachment; filename="budget-fortap.xlsx"'
    assert json.loads(d.headers["x-fortap-not-kept"])[-1].startswith("cached formula values")
    wb = openpyxl.load_workbook(io.BytesIO(d.content))
    ws = wb["Budget"]
    assert (ws["D7"].value, ws["B7"].value, ws["D6"].value) == (TOTAL_FORMULA, "=SUM(B2:B6)", 35)
    assert ws["A1"].font.bold and "E1:F1" in [str(m) for m in ws.merged_cells.ranges]


def test_csv_upload_downloads_as_xlsx_and_says_the_format_is_lost(client):
    data = b"item,amount\nrent,1200\nfood,310\ntotal,\n"
    r = client.post("/workbooks", files={"file": ("costs.csv", data, "text/csv")})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["not_kept"][0] == "the .csv format: the download is an .xlsx with one sheet"
    sheet = body["sheets"][0]["name"]
    write = {"sheet": sheet, "cell": "B4", "formula": "=SUM(B2:B3)"}
    assert client.post(f"/workbooks/{body['id']}/cells", json=write).json()["value"] == 1510
    wb = openpyxl.load_workbook(io.BytesIO(client.get(f"/workbooks/{body['id']}/download").content))
    assert (wb[sheet]["A2"].value, wb[sheet]["B2"].value, wb[sheet]["B4"].value) == (
        "rent",
        1200,
        "=SUM(B2:B3)",
    )


def test_delete_forgets_the_workbook(client, book):
    assert client.delete(f"/workbooks/{book}").status_code == 204
    r = client.get(f"/workbooks/{book}")
    assert (r.status_code, r.json()["detail"]) == (404, GONE.format(book))
    assert client.delete(f"/workbooks/{book}").status_code == 404


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/app.css").status_code == 200
    assert "cdn" not in page.text.lower()
    for script in ("app.js", "findings.js", "recover.js"):
        assert f'<script src="/static/{script}">' in page.text
        assert "http" not in client.get(f"/static/{script}").text
    assert client.get("/docs").status_code == 404  # Swagger UI would load a CDN's scripts


def test_openapi_lists_every_endpoint(client):
    spec = client.get("/openapi.json").json()
    assert sorted(spec["paths"]) == [
        "/health",
        "/workbooks",
        "/workbooks/{book_id}",
        "/workbooks/{book_id}/ask",
        "/workbooks/{book_id}/cells",
        "/workbooks/{book_id}/download",
        "/workbooks/{book_id}/recover",
        "/workbooks/{book_id}/recover/accept",
        "/workbooks/{book_id}/sheets/{sheet}",
        "/workbooks/{book_id}/sheets/{sheet}/findings",
        "/workbooks/{book_id}/sheets/{sheet}/types",
        "/workbooks/{book_id}/suggest",
    ]


# ---- errors: status and message ---------------------------------------------------------


def _error(r) -> tuple[int, str]:
    return r.status_code, r.json()["detail"]


def test_too_large_upload_is_413_before_it_is_read(client):
    r = client.post("/workbooks", files={"file": ("big.xlsx", b"\0" * 300_000, XLSX)})
    assert _error(r) == (
        413,
        "upload is over the limit of 200,000 bytes; "
        "start the server with a larger --max-upload-mb to accept it",
    )
    assert client.get("/health").json()["workbooks"] == 0


def test_too_large_upload_without_a_length_is_stopped_while_it_streams(client):
    boundary = "b0undary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.xlsx"\r\n\r\n'
    ).encode()

    def chunks():  # no Content-Length: the body arrives chunked
        yield head
        for _ in range(40):
            yield b"\0" * 10_000
        yield f"\r\n--{boundary}--\r\n".encode()

    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    r = client.post("/workbooks", content=chunks(), headers=headers)
    assert r.status_code == 413 and r.json()["detail"].startswith("upload is over the limit")


def test_not_a_spreadsheet_is_415(client):
    r = client.post("/workbooks", files={"file": ("report.xlsx", b"%PDF-1.7 hello", XLSX)})
    assert _error(r) == (
        415,
        "not a spreadsheet: the content is a PDF document, not a .xlsx workbook (report.xlsx)",
    )
    r = client.post("/workbooks", files={"file": ("notes.txt", b"hello", "text/plain")})
    assert _error(r) == (
        415,
        "cannot read 'notes.txt': unsupported file type '.txt' "
        "(supported: .csv, .ods, .tsv, .xls, .xlsm, .xlsx, .xltm, .xltx)",
    )


def test_encrypted_workbook_is_422(client, tmp_path):
    data = ole_file(tmp_path / "x.xlsx", "EncryptionInfo", b"\x04\x00\x04\x00").read_bytes()
    r = client.post("/workbooks", files={"file": ("secret.xlsx", data, XLSX)})
    assert _error(r) == (422, "workbook is password-protected (encrypted) (secret.xlsx)")


def test_upload_without_a_file_part_is_422(client):
    r = client.post("/workbooks", data={"name": "x"})
    assert _error(r) == (422, "file: Field required")


def test_unknown_id_is_404_on_every_endpoint(client):
    gone = GONE.format(NO_SUCH_ID)
    calls = [
        client.get(f"/workbooks/{NO_SUCH_ID}"),
        client.get(f"/workbooks/{NO_SUCH_ID}/sheets/Budget"),
        client.post(f"/workbooks/{NO_SUCH_ID}/suggest", json={"sheet": "Budget", "cell": "D7"}),
        client.post(
            f"/workbooks/{NO_SUCH_ID}/cells",
            json={"sheet": "Budget", "cell": "D7", "formula": "=1"},
        ),
        client.get(f"/workbooks/{NO_SUCH_ID}/download"),
        client.delete(f"/workbooks/{NO_SUCH_ID}"),
        client.get(f"/workbooks/{NO_SUCH_ID}/sheets/Budget/types"),
        client.post(f"/workbooks/{NO_SUCH_ID}/ask", json={"sheet": "Budget", "question": "?"}),
    ]
    assert [_error(r) for r in calls] == [(404, gone)] * 8
    r = client.get("/workbooks/..%2F..%2Fetc/download")
    assert r.status_code == 404


def test_unknown_sheet_is_404(client, book):
    gone = "no sheet 'March' in 'budget.xlsx' (its sheets: 'Budget', 'Notes')"
    assert _error(client.get(f"/workbooks/{book}/sheets/March")) == (404, gone)
    r = client.post(f"/workbooks/{book}/suggest", json={"sheet": "March", "cell": "D7"})
    assert _error(r) == (404, gone)


def test_bad_cell_and_bad_range_are_422(client, book):
    r = client.post(f"/workbooks/{book}/suggest", json={"sheet": "Budget", "cell": "7D"})
    assert _error(r) == (422, "bad cell '7D': expected A1 text such as B7 (sheet 'Budget')")
    r = client.get(f"/workbooks/{book}/sheets/Budget", params={"range": "A1:B2:C3"})
    assert _error(r) == (422, "bad range 'A1:B2:C3': expected A1:B2 (sheet 'Budget')")
    r = client.post(f"/workbooks/{book}/suggest", json={"sheet": "Budget", "cell": "D7", "k": 0})
    assert _error(r) == (422, "k: Input should be greater than or equal to 1")


def test_window_over_the_cell_limit_is_422(client, book, monkeypatch):
    monkeypatch.setattr("fortap.service.grid.MAX_WINDOW_CELLS", 20)
    assert client.get(f"/workbooks/{book}/sheets/Budget", params={"range": "A1:D5"}).is_success
    assert _error(client.get(f"/workbooks/{book}/sheets/Budget")) == (
        422,
        "range A1:F7 of sheet 'Budget' holds 42 cells, over the limit of 20 per request: "
        "ask for a smaller range",
    )


def test_bad_json_is_422(client, book):
    r = client.post(
        f"/workbooks/{book}/suggest",
        content=b'{"sheet": "Budget", "cell": ',
        headers={"Content-Type": "application/json"},
    )
    assert _error(r) == (422, "request body is not valid JSON")
    r = client.post(f"/workbooks/{book}/suggest", content=b"[1, 2]")
    assert _error(r) == (422, "request body must be a JSON object (Content-Type: application/json)")
    r = client.post(f"/workbooks/{book}/suggest", json={"sheet": "Budget"})
    assert _error(r) == (422, "cell: Field required")


def test_bad_formulas_are_422(client, book):
    write = {"sheet": "Budget", "cell": "D7", "formula": "SUM(D2:D6)"}
    assert _error(client.post(f"/workbooks/{book}/cells", json=write)) == (
        422,
        "formula: String should match pattern '^='",
    )
    write["formula"] = "=SUM(D2:D6"
    status, message = _error(client.post(f"/workbooks/{book}/cells", json=write))
    assert status == 422 and "'=SUM(D2:D6'" in message


def test_least_recently_used_workbook_is_evicted_and_files_go_on_shutdown():
    app = create_app(ServeConfig(store=StoreLimits(max_books=2)))
    root = app.state.store.root
    with page_client(app) as c:
        ids = [
            c.post("/workbooks", files={"file": (f"b{i}.xlsx", budget_bytes(), XLSX)}).json()["id"]
            for i in range(2)
        ]
        assert c.get(f"/workbooks/{ids[0]}").status_code == 200  # ids[0] is now the most recent
        third = c.post("/workbooks", files={"file": ("b2.xlsx", budget_bytes(), XLSX)}).json()
        assert c.get(f"/workbooks/{ids[1]}").status_code == 404
        assert [c.get(f"/workbooks/{i}").status_code for i in (ids[0], third["id"])] == [200, 200]
        assert sorted(p.name for p in root.iterdir()) == sorted([ids[0], third["id"]])
    assert not root.exists()


def test_what_openpyxl_changes_in_charts_and_images_is_listed(client):
    from openpyxl.chart import BarChart, Reference
    from openpyxl.drawing.image import Image as SheetImage
    from PIL import Image

    from tests.service.serve_books import budget_book

    wb = budget_book()
    ws = wb["Budget"]
    chart = BarChart()
    chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=6), titles_from_data=True)
    ws.add_chart(chart, "H2")
    logo = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(logo, format="PNG")
    ws.add_image(SheetImage(logo), "H20")
    out = io.BytesIO()
    wb.save(out)
    r = client.post("/workbooks", files={"file": ("charted.xlsx", out.getvalue(), XLSX)})
    assert r.json()["not_kept"] == [
        "chart styles: openpyxl rebuilds charts from what it reads, so their look may change",
        "image effects: openpyxl keeps images but may drop their cropping and effects",
        "cached formula values: Excel or LibreOffice recompute them when the file is opened",
    ]
