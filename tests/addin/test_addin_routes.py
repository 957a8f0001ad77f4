"""The add-in's side of `fortap serve --addin`: a sheet sent as Office.js reads it becomes a
session, suggestions are asked by hash alone (404 until the sheet is sent), the pane is served
with the token, the add-in's origin is allowed explicitly and another site's is still refused,
and the pane's CSP lets Office frame it while the page's does not."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")

from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.guard import TOKEN_HEADER  # noqa: E402
from tests.service.serve_client import page_token  # noqa: E402

PORT = 8443
HASH = "ab" * 32
# Budget!A1:D7 as Office.js gives it: values, formulas (a value where there is none), formats
VALUES = [["Item", "Jan", "Feb", "Mar"], ["Rent", 1200, 1200, 1250], ["Food", 310, 295, 330],
          ["Total", 1510, 1495, ""]]  # fmt: skip
FORMULAS = [row[:] for row in VALUES]
FORMULAS[3][1:3] = ["=SUM(B2:B3)", "=SUM(C2:C3)"]
FORMATS = [["General"] * 4 for _ in VALUES]
GRID = {"hash": HASH, "sheet": "Budget", "address": "Budget!A1:D4", "values": VALUES,
        "formulas": FORMULAS, "formats": FORMATS}  # fmt: skip
ASK = {"hash": HASH, "sheet": "Budget", "cell": "D4", "k": 5}


@pytest.fixture
def pane():
    from fastapi.testclient import TestClient

    app = create_app(ServeConfig(port=PORT, addin=True))
    client = TestClient(app, base_url=f"https://localhost:{PORT}")
    page = client.get("/addin/taskpane.html")
    assert page.status_code == 200
    client.headers[TOKEN_HEADER] = page_token(page.text)
    client.headers["Origin"] = f"https://localhost:{PORT}"
    with client:
        yield client


def test_suggest_by_hash_after_the_sheet_is_sent_once(pane):
    unknown = pane.post("/addin/suggest", json=ASK)
    assert unknown.status_code == 404 and "POST /addin/sheets" in unknown.json()["detail"]
    sent = pane.post("/addin/sheets", json=GRID)
    assert sent.status_code == 201, sent.text
    assert sent.json()["cells"] == 15
    out = pane.post("/addin/suggest", json=ASK)
    assert out.status_code == 200, out.text
    top = out.json()["suggestions"][0]
    assert (top["formula"], top["value"]) == ("=SUM(D2:D3)", 1580)
    assert out.json()["id"] == sent.json()["id"]  # the session the other routes name


def test_a_grid_that_is_not_a_rectangle_is_one_line(pane):
    bad = pane.post("/addin/sheets", json=GRID | {"formats": FORMATS[:2]})
    assert bad.status_code == 422
    assert bad.json()["detail"] == "sheet 'Budget': formats is not the shape of values (4, 4)"


def test_the_addin_origin_is_allowed_and_another_site_refused(pane):
    assert pane.post("/addin/sheets", json=GRID).status_code == 201
    other = pane.post("/addin/sheets", json=GRID, headers={"Origin": "https://evil.example"})
    assert other.status_code == 403


def test_the_pane_may_be_framed_by_office_and_the_page_by_no_one(pane):
    csp = pane.get("/addin/taskpane.html").headers["content-security-policy"]
    assert "frame-ancestors 'self' https://*.officeapps.live.com" in csp
    assert "script-src 'self' https://appsforoffice.microsoft.com;" in csp
    assert "x-frame-options" not in pane.get("/addin/taskpane.html").headers
    page = pane.get("/")
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


def test_without_addin_there_is_no_pane():
    from fastapi.testclient import TestClient

    with TestClient(create_app(ServeConfig()), base_url="http://127.0.0.1:8000") as client:
        assert client.get("/addin/taskpane.html").status_code == 404


def test_office_js_is_served_from_npm_for_offline_use():
    from fastapi.testclient import TestClient

    from tests.addin.served import OFFICE_JS

    if not (OFFICE_JS / "office.js").is_file():
        pytest.skip(f"{OFFICE_JS} not found: scripts/setup.sh runs npm ci")
    app = create_app(ServeConfig(port=PORT, addin=True, office_js=OFFICE_JS))
    with TestClient(app, base_url=f"https://localhost:{PORT}") as client:
        got = client.get("/addin/office-js/office.js")
    assert got.status_code == 200 and "Office" in got.text


def test_the_certificate_is_made_once_for_the_loopback(tmp_path):
    from cryptography import x509

    from fortap.service.certs import ensure_cert

    cert, key = ensure_cert(tmp_path)
    assert key.stat().st_mode & 0o777 == 0o600
    names = x509.load_pem_x509_certificate(cert.read_bytes()).extensions.get_extension_for_class(
        x509.SubjectAlternativeName).value  # fmt: skip
    assert names.get_values_for_type(x509.DNSName) == ["localhost"]
    first = cert.read_bytes()
    assert ensure_cert(tmp_path) == (cert, key) and cert.read_bytes() == first  # reused
