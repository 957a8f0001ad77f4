"""Every response of `fortap serve` carries the security headers (`service/headers.py`): the
page, its scripts, the API, a refusal and an error alike."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.headers import HEADERS  # noqa: E402
from tests.service.serve_books import budget_bytes  # noqa: E402
from tests.service.serve_client import page_client  # noqa: E402

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
WANTED = {name.decode(): value.decode() for name, value in HEADERS}


def _has_all(response) -> bool:
    return all(response.headers.get(name) == value for name, value in WANTED.items())


def test_every_kind_of_response_carries_the_four_headers():
    assert set(WANTED) == {"content-security-policy", "x-frame-options",
                           "x-content-type-options", "referrer-policy"}  # fmt: skip
    assert "frame-ancestors 'none'" in WANTED["content-security-policy"]
    assert "script-src 'self'" in WANTED["content-security-policy"]
    app = create_app(ServeConfig(max_upload_bytes=200_000))
    with page_client(app) as client:
        upload = client.post("/workbooks", files={"file": ("b.xlsx", budget_bytes(), XLSX)})
        responses = [
            client.get("/"),
            client.get("/static/app.js"),
            upload,
            client.get(f"/workbooks/{upload.json()['id']}"),
            client.get("/workbooks/nope"),  # 404
        ]
    with TestClient(app) as stranger:  # no token, no page: refused before any route
        responses.append(stranger.post("/workbooks", files={"file": ("b.xlsx", b"x", XLSX)}))
    assert [r.status_code for r in responses] == [200, 200, 201, 200, 404, 403]
    assert all(_has_all(r) for r in responses)
