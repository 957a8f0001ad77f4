"""`fortap serve`'s findings toggle (`service/findings.py`): the open sheet audited as
`fortap audit --sheet` audits it, and a finding's fix written back through the guarded
`POST /workbooks/{id}/cells`, as an accepted suggestion is."""

from __future__ import annotations

import io

import openpyxl
import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")

from fortap.audit.auditor import audit  # noqa: E402
from fortap.audit.findings import INCONSISTENT, MISSING  # noqa: E402
from fortap.service import findings as findings_module  # noqa: E402
from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.guard import TOKEN_HEADER  # noqa: E402
from fortap.suggest.engine import Suggester  # noqa: E402
from tests.service.serve_auditor import PAGE_AUDITOR  # noqa: E402
from tests.service.serve_books import (  # noqa: E402
    TYPED_CELL,
    TYPED_FIX,
    budget_bytes,
    typed_total_bytes,
)
from tests.service.serve_client import page_client  # noqa: E402

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
URL = "/workbooks/{}/sheets/Sales/findings"


CONFIG = ServeConfig(max_upload_bytes=200_000)


@pytest.fixture
def client():
    with page_client(create_app(CONFIG, auditor=PAGE_AUDITOR)) as c:
        yield c


def _upload(client, data: bytes, name: str = "sales.xlsx") -> str:
    r = client.post("/workbooks", files={"file": (name, data, XLSX)})
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.fixture
def sales(client) -> str:
    return _upload(client, typed_total_bytes())


def test_a_typed_number_in_a_formula_block_is_found_as_fortap_audit_finds_it(
    client, sales, tmp_path
):
    r = client.get(URL.format(sales))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["sheet"] == "Sales"
    assert body["legend"] == [
        {"kind": MISSING, "colour": "#f28e2b"},  # the colours of `fortap audit -o`'s PNG
        {"kind": INCONSISTENT, "colour": "#d62728"},
    ]
    assert (body["typed_numbers"], body["labels"], body["formulas"]) == (11, 0, 7)
    # a small sheet is checked whole: the one typed number its fix settles needs no engine
    assert body["checked"] == body["planned_checks"] == 10
    (found,) = body["findings"]
    assert (found["cell"], found["kind"], found["fix"]) == (TYPED_CELL, MISSING, TYPED_FIX)
    assert found["evidence"].startswith("D4 holds 310 typed by hand; =B4+C4 gives 310")
    assert 0.5 < found["score"] <= 1.0

    path = tmp_path / "sales.xlsx"  # the command on the same file gives the same findings
    path.write_bytes(typed_total_bytes())
    cli = audit(Suggester.open(path), ["Sales"]).to_json()
    assert [(f["cell"], f["kind"], round(f["score"], 4), f["fix"]) for f in cli["findings"]] == [
        (f["cell"], f["kind"], f["score"], f["fix"]) for f in body["findings"]
    ]


def test_the_same_sheet_gives_the_same_findings_on_every_upload(client, sales):
    again = _upload(client, typed_total_bytes())
    assert client.get(URL.format(sales)).json() == client.get(URL.format(again)).json()


def test_a_clean_sheet_has_no_finding(client):
    book = _upload(client, budget_bytes(), "budget.xlsx")
    r = client.get(f"/workbooks/{book}/sheets/Budget/findings")
    assert r.status_code == 200, r.text
    assert r.json()["findings"] == []


def test_the_fix_is_refused_without_the_token_and_written_with_it(client, sales):
    fix = {"sheet": "Sales", "cell": TYPED_CELL, "formula": TYPED_FIX}
    for headers in ({TOKEN_HEADER: ""}, {TOKEN_HEADER: "guessed"}):
        r = client.post(f"/workbooks/{sales}/cells", json=fix, headers=headers)
        assert r.status_code == 403, r.text
        assert r.json()["detail"].startswith("refused: the X-Fortap-Token header is missing")
    assert client.get(f"/workbooks/{sales}").json()["accepted"] == []

    r = client.post(f"/workbooks/{sales}/cells", json=fix)
    assert r.status_code == 200, r.text
    assert r.json() == {"sheet": "Sales", "cell": "D4", "formula": "=B4+C4", "value": 310.0,
                        "error": None}  # fmt: skip
    assert client.get(f"/workbooks/{sales}").json()["accepted"] == [fix]
    saved = openpyxl.load_workbook(io.BytesIO(client.get(f"/workbooks/{sales}/download").content))
    assert saved["Sales"]["D4"].value == "=B4+C4"


def test_findings_are_cached_until_a_formula_is_written(client, sales):
    first = client.get(URL.format(sales)).json()
    session = client.app.state.store.get(sales)
    assert session.findings == {"Sales": first}
    assert client.get(URL.format(sales)).json() == first
    fix = {"sheet": "Sales", "cell": TYPED_CELL, "formula": TYPED_FIX}
    assert client.post(f"/workbooks/{sales}/cells", json=fix).status_code == 200
    assert session.findings == {}
    after = client.get(URL.format(sales)).json()
    assert after["findings"] == [] and after["formulas"] == 8  # the fixed cell is a formula now


def test_findings_need_no_token_but_the_host_check_holds(client, sales):
    client.headers.pop(TOKEN_HEADER)
    assert client.get(URL.format(sales)).status_code == 200
    r = client.get(URL.format(sales), headers={"Host": "evil.example:8000"})
    assert r.status_code == 403
    assert r.json()["detail"].startswith("refused: the Host header 'evil.example:8000'")


def test_a_server_started_without_the_audit_says_so():
    with page_client(create_app(CONFIG)) as client:
        r = client.get(URL.format(_upload(client, typed_total_bytes())))
    assert r.status_code == 503
    assert r.json()["detail"] == (
        "the findings toggle needs the audit, which this server was started without "
        "(create_app's auditor); fortap audit BOOK --sheet NAME gives the same findings"
    )


def test_an_unknown_sheet_is_404_and_a_large_sheet_is_refused(client, sales, monkeypatch):
    r = client.get(f"/workbooks/{sales}/sheets/Nope/findings")
    assert r.status_code == 404
    assert r.json()["detail"] == "no sheet 'Nope' in 'sales.xlsx' (its sheets: 'Sales')"
    monkeypatch.setattr(findings_module, "MAX_AUDITED_CELLS", 20)
    r = client.get(URL.format(sales))
    assert r.status_code == 422
    assert r.json()["detail"] == (
        "sheet 'Sales' has 28 cells with content, over the 20 the findings toggle audits in "
        "one request; fortap audit reads the whole sheet"
    )
