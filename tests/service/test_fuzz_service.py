"""Property-based fuzz of `fortap serve` against its own OpenAPI spec (schemathesis): no 5xx.

Schemathesis generates requests for every operation from `/openapi.json` (bounded, derandomised).
To get past the id and sheet checks, about half of the generated ids, sheets and cells are
replaced by a real upload's, so the engine itself sees generated cells and formulas.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")
schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed")

from hypothesis import HealthCheck, settings  # noqa: E402

from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.guard import TOKEN_HEADER  # noqa: E402
from tests.service.serve_auditor import PAGE_AUDITOR  # noqa: E402
from tests.service.serve_books import budget_bytes  # noqa: E402
from tests.service.serve_client import page_client  # noqa: E402

if "torch" in sys.modules:  # a bench module imported earlier in collection turned on
    sys.modules["torch"].set_flush_denormal(False)  # flush-to-zero: hypothesis needs subnormals
APP = create_app(ServeConfig(max_upload_bytes=100_000), auditor=PAGE_AUDITOR)
HOST = {"Host": "127.0.0.1:8000"}  # the server refuses schemathesis's own "testserver"
SCHEMA = schemathesis.openapi.from_asgi("/openapi.json", APP, headers=HOST)
BOOKS: list[str] = []


def _book() -> str:
    """The real upload's id; uploaded again when a lifespan shutdown emptied the store."""
    if not BOOKS or BOOKS[-1] not in APP.state.store:
        upload = page_client(APP).post(
            "/workbooks", files={"file": ("budget.xlsx", budget_bytes())}
        )
        BOOKS.append(upload.json()["id"])
    return BOOKS[-1]


def _steer(case) -> None:
    """Point half of the cases at the real workbook, sheet and a real cell (by a stable hash)."""
    params = case.path_parameters or {}
    if "book_id" in params and case.method.upper() != "DELETE":
        params["book_id"] = _book()
        if "sheet" in params and len(params["sheet"]) % 2 == 0:
            params["sheet"] = "Budget"
    body = case.body if isinstance(case.body, dict) else {}
    if isinstance(body.get("sheet"), str) and len(body["sheet"]) % 2 == 0:
        body["sheet"] = "Budget"
        if isinstance(body.get("cell"), str):
            body["cell"] = "ABCDEFGH"[len(body["cell"]) % 8] + str(1 + len(body["cell"]) % 9)


@SCHEMA.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_no_request_gets_a_server_error(case):
    _steer(case)
    response = case.call(headers={**HOST, TOKEN_HEADER: APP.state.guard.token})  # as the page
    assert response.status_code < 500, (case.method, case.formatted_path, response.text)
