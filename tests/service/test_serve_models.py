"""`fortap serve`'s routes over the shipped models (`service/model_routes.py`): a sheet's cells
typed by `models/cell-types`, and a question answered by `models/table-qa` whose formula is put
into a cell and downloaded, under the same guard as the other routes."""

from __future__ import annotations

import io
from pathlib import Path

import openpyxl
import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")

from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.guard import TOKEN_HEADER  # noqa: E402
from fortap.tasks.cell_types.labels import CELL_TYPES  # noqa: E402
from tests.service.serve_books import budget_bytes  # noqa: E402
from tests.service.serve_client import page_client  # noqa: E402

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
REAL = "hitab/annotation_examples/Sentence Revision Alignment Conversion-StatCan/10.xlsx"
JAPAN = "How many kg of Agaricus went to Japan in 2012?"
RENT = "How much was rent in Feb?"


def _upload(client, data: bytes, name: str) -> str:
    r = client.post("/workbooks", files={"file": (name, data, XLSX)})
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.fixture(scope="module")
def real(data_dir):
    """A client with the real StatCan workbook uploaded (its sheet `labeling`): (client, id)."""
    with page_client(create_app(ServeConfig(max_upload_bytes=200_000))) as client:
        yield client, _upload(client, (data_dir / REAL).read_bytes(), "10.xlsx")


@pytest.fixture
def client():
    with page_client(create_app(ServeConfig(max_upload_bytes=200_000))) as c:
        yield c


@pytest.fixture
def budget(client) -> str:
    return _upload(client, budget_bytes(), "budget.xlsx")


def test_a_real_sheet_is_typed_as_fortap_cell_types_types_it(real, data_dir):
    from fortap.tasks.cell_types.show import as_record, load_typer, type_sheet

    client, book = real
    r = client.get(f"/workbooks/{book}/sheets/labeling/types")
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["sheet"], body["model"], body["kind"]) == (
        "labeling",
        "models/cell-types (shipped)",
        "boosted",
    )
    assert [t["type"] for t in body["legend"]] == list(CELL_TYPES)
    assert body["legend"][0] == {"type": "metadata", "colour": "#c77dff"}  # the PNG's colours
    assert (body["cells"][0]["cell"], body["cells"][0]["type"]) == ("A1", "metadata")  # title
    typer, _ = load_typer(None)
    cli = as_record(data_dir / REAL, type_sheet(data_dir / REAL, "labeling", typer), "", typer)
    assert body["cells"] == cli["cells"]  # the same cells, types and probabilities
    assert len(body["cells"]) > 100


def test_types_are_cached_until_a_formula_is_written_into_the_sheet(client, budget):
    url = f"/workbooks/{budget}/sheets/Budget/types"
    first = client.get(url).json()
    assert "D7" not in {c["cell"] for c in first["cells"]}  # empty: nothing to type
    session = client.app.state.store.get(budget)
    assert session.cell_types == {"Budget": first}
    assert client.get(url).json() == first
    write = {"sheet": "Budget", "cell": "D7", "formula": "=SUM(D2:D6)"}
    assert client.post(f"/workbooks/{budget}/cells", json=write).status_code == 200
    assert session.cell_types == {}
    typed = {c["cell"]: c["type"] for c in client.get(url).json()["cells"]}
    assert typed["D7"] in CELL_TYPES


def test_types_need_no_token_but_the_host_check_holds(client, budget):
    client.headers.pop(TOKEN_HEADER)
    url = f"/workbooks/{budget}/sheets/Budget/types"
    assert client.get(url).status_code == 200
    r = client.get(url, headers={"Host": "evil.example:8000"})
    assert r.status_code == 403
    assert r.json()["detail"].startswith("refused: the Host header 'evil.example:8000'")


def test_a_question_over_a_real_sheet_gets_the_answer_and_its_formula(real):
    client, book = real
    r = client.post(f"/workbooks/{book}/ask", json={"sheet": "labeling", "question": JAPAN})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["sheet"], body["table"], body["question"]) == ("labeling", "A1:H11", JAPAN)
    assert (body["answer"], body["operation"], body["formula"]) == ([14.0], "none", "=C7")
    assert [c["ref"] for c in body["cells"]] == ["C7"]
    assert (body["source"], body["model"]) == ("model", "models/table-qa (shipped)")


def test_the_answers_formula_is_put_into_a_cell_and_downloaded(client, budget):
    r = client.post(f"/workbooks/{budget}/ask", json={"sheet": "Budget", "question": RENT})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert (answer["answer"], answer["formula"], answer["table"]) == ([1200.0], "=C2", "A1:F7")
    put = {"sheet": "Budget", "cell": "G2", "formula": answer["formula"]}
    written = client.post(f"/workbooks/{budget}/cells", json=put)
    assert written.json() == {
        "sheet": "Budget",
        "cell": "G2",
        "formula": "=C2",
        "value": 1200.0,
        "error": None,
    }
    assert client.get(f"/workbooks/{budget}").json()["accepted"] == [put]
    saved = openpyxl.load_workbook(io.BytesIO(client.get(f"/workbooks/{budget}/download").content))
    assert saved["Budget"]["G2"].value == "=C2"


@pytest.mark.parametrize(
    "headers",
    [
        {TOKEN_HEADER: ""},
        {"Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"},
    ],
    ids=["no-token", "origin", "fetch-site", "rebinding"],
)
def test_asking_and_putting_are_refused_from_another_site(client, budget, headers):
    ask = client.post(
        f"/workbooks/{budget}/ask", json={"sheet": "Budget", "question": RENT}, headers=headers
    )
    put = {"sheet": "Budget", "cell": "G2", "formula": "=C2"}
    write = client.post(f"/workbooks/{budget}/cells", json=put, headers=headers)
    for r in (ask, write):
        assert r.status_code == 403 and r.json()["detail"].startswith("refused: "), r.text
    assert client.get(f"/workbooks/{budget}").json()["accepted"] == []


def test_a_missing_model_is_a_503_naming_its_folder(tmp_path: Path):
    absent = tmp_path / "no-model"
    config = ServeConfig(max_upload_bytes=200_000, qa_model=absent, cell_type_model=absent)
    with page_client(create_app(config)) as client:
        book = _upload(client, budget_bytes(), "budget.xlsx")
        ask = client.post(f"/workbooks/{book}/ask", json={"sheet": "Budget", "question": RENT})
        types = client.get(f"/workbooks/{book}/sheets/Budget/types")
    for r, what in ((ask, "the ask box"), (types, "the cell-type colouring")):
        assert r.status_code == 503
        assert r.json()["detail"] == (
            f"{what} needs its model, and the folder {absent} does not exist: the shipped "
            "models come in the models/ folder of fortap's repository; set FORTAP_MODELS to "
            f"such a folder (looked in {tmp_path})"
        )


def test_bad_questions_and_sheets_are_4xx_naming_the_upload(client, budget):
    def ask(sheet: str, question: str):
        r = client.post(f"/workbooks/{budget}/ask", json={"sheet": sheet, "question": question})
        return r.status_code, r.json()["detail"]

    assert ask("Budget", "") == (422, "question: String should have at least 1 character")
    assert ask("Budget", "   ") == (
        422,
        'the question is empty: type one, e.g. "total of 2019"',
    )
    assert ask("Nope", RENT)[0] == 404
    status, detail = ask("Notes", RENT)  # one cell: no table
    assert status == 422 and "no table found" in detail
    assert "budget.xlsx" in detail and "upload.xlsx" not in detail
