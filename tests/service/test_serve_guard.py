"""`fortap serve` belongs to its page: other hosts and other sites are refused on every route
that changes state, and one browser's uploads never evict another's work (`service/guard.py`,
`service/store.py`)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the [serve] extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from fortap.service.app import ServeConfig, create_app  # noqa: E402
from fortap.service.guard import TOKEN_HEADER, Guard  # noqa: E402
from fortap.service.store import StoreLimits  # noqa: E402
from tests.service.serve_books import budget_bytes  # noqa: E402
from tests.service.serve_client import page_client  # noqa: E402

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}
ACCEPT = {"sheet": "Budget", "cell": "D7", "formula": "=SUM(D2:D6)"}


def _upload(client, name: str = "budget.xlsx"):
    return client.post("/workbooks", files={"file": (name, budget_bytes(), XLSX)})


def _state_changing_routes(app) -> list[tuple[str, str]]:
    """(method, path) of every operation that changes state, from the app's own OpenAPI spec."""
    found = [
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        for method in operations
        if method.upper() in UNSAFE
    ]
    assert ("POST", "/workbooks") in found and ("DELETE", "/workbooks/{book_id}") in found
    return found


def _request(client, method: str, path: str, book_id: str, **headers):
    url = path.replace("{book_id}", book_id).replace("{sheet}", "Budget")
    if path == "/workbooks":
        files = {"file": ("budget.xlsx", budget_bytes(), XLSX)}
        return client.request(method, url, files=files, headers=headers)
    return client.request(method, url, json=ACCEPT | {"k": 3}, headers=headers)


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Host": "evil.example"},
        {"Host": "evil.example:8000", "Origin": "http://evil.example:8000"},  # DNS rebinding
        {"Sec-Fetch-Site": "cross-site"},
        {TOKEN_HEADER: "a-guessed-token"},
    ],
    ids=["origin", "host", "rebinding", "fetch-site", "token"],
)
def test_every_state_changing_route_refuses_another_site(headers):
    app = create_app(ServeConfig(max_upload_bytes=200_000))
    with page_client(app) as client:
        book_id = _upload(client).json()["id"]
        client.post(f"/workbooks/{book_id}/cells", json=ACCEPT)
        before = client.get(f"/workbooks/{book_id}").json()
        for method, path in _state_changing_routes(app):
            r = _request(client, method, path, book_id, **headers)
            assert r.status_code == 403, (method, path, r.text)
            assert r.json()["detail"].startswith("refused: ")
        assert client.get("/health").json()["workbooks"] == 1
        assert client.get(f"/workbooks/{book_id}").json() == before


def test_a_request_without_the_token_is_refused_and_the_page_own_is_not():
    app = create_app(ServeConfig(max_upload_bytes=200_000))
    with page_client(app) as client:
        token = client.headers.pop(TOKEN_HEADER)
        r = _upload(client)
        assert r.status_code == 403 and TOKEN_HEADER in r.json()["detail"]
        client.headers[TOKEN_HEADER] = token
        own = _upload(client, "mine.xlsx")
        assert own.status_code == 201, own.text
        same_origin = {"Origin": "http://127.0.0.1:8000", "Sec-Fetch-Site": "same-origin"}
        r = client.post(f"/workbooks/{own.json()['id']}/cells", json=ACCEPT, headers=same_origin)
        assert r.status_code == 200, r.text


def test_a_foreign_host_cannot_even_read():
    app = create_app(ServeConfig())
    with page_client(app) as client:
        r = client.get("/health", headers={"Host": "rebound.evil.example:8000"})
        assert r.status_code == 403
        assert r.json()["detail"].startswith("refused: the Host header 'rebound.evil.example:8000'")
        assert client.get("/", headers={"Host": "evil.example"}).status_code == 403
        assert client.get("/health", headers={"Host": "localhost:8000"}).status_code == 200


def test_host_names_accepted_by_the_bind_address():
    loopback, wildcard, named = Guard("127.0.0.1"), Guard("0.0.0.0"), Guard("box.lan")
    assert loopback.host_ok("127.0.0.1:8000") and loopback.host_ok("[::1]:8000")
    assert loopback.host_ok("LOCALHOST") and not loopback.host_ok("192.168.1.5:8000")
    assert wildcard.host_ok("192.168.1.5:8000") and not wildcard.host_ok("evil.example:8000")
    assert named.host_ok("box.lan:8000") and not named.host_ok("evil.example")
    assert not loopback.host_ok("127.0.0.1:port") and not loopback.host_ok("")


def test_twenty_uploads_from_another_browser_do_not_evict_accepted_work():
    app = create_app(ServeConfig(max_upload_bytes=200_000, store=StoreLimits(max_books=4)))
    with page_client(app) as mine, page_client(app) as other:
        book_id = _upload(mine).json()["id"]
        assert mine.post(f"/workbooks/{book_id}/cells", json=ACCEPT).status_code == 200
        statuses = [_upload(other, f"b{i}.xlsx").status_code for i in range(20)]
        assert statuses == [201] * 20  # the other browser evicts only its own uploads
        kept = mine.get(f"/workbooks/{book_id}").json()
        assert kept["accepted"] == [ACCEPT]


def test_a_store_full_of_unsaved_work_refuses_an_upload_until_it_is_downloaded():
    app = create_app(ServeConfig(max_upload_bytes=200_000, store=StoreLimits(max_books=2)))
    with page_client(app) as client, page_client(app) as other:
        ids = [_upload(client, f"b{i}.xlsx").json()["id"] for i in range(2)]
        for book_id in ids:
            assert client.post(f"/workbooks/{book_id}/cells", json=ACCEPT).status_code == 200
        for who in (client, other):
            r = _upload(who, "third.xlsx")
            assert r.status_code == 409, r.text
            assert "accepted formulas not yet downloaded" in r.json()["detail"]
        assert client.get(f"/workbooks/{ids[0]}/download").status_code == 200
        assert _upload(client, "third.xlsx").status_code == 201  # the downloaded one made room
        assert client.get(f"/workbooks/{ids[0]}").status_code == 404
        assert client.get(f"/workbooks/{ids[1]}").json()["accepted"] == [ACCEPT]
        assert len(list(app.state.store.root.iterdir())) == 2  # refused uploads left no file
        fourth = _upload(other, "fourth.xlsx")  # a full store makes room from whoever holds most
        assert fourth.status_code == 201
        assert client.get(f"/workbooks/{ids[1]}").json()["accepted"] == [ACCEPT]  # never work


def test_one_browser_over_its_quota_gets_429_and_locks_nobody_out():
    limits = StoreLimits(max_books=4, max_bytes=10**6, max_per_client=3)
    app = create_app(ServeConfig(max_upload_bytes=200_000, store=limits))
    with page_client(app) as first, page_client(app) as second:
        ids = [_upload(first, f"b{i}.xlsx").json()["id"] for i in range(3)]
        for book_id in ids:
            assert first.post(f"/workbooks/{book_id}/cells", json=ACCEPT).status_code == 200
        over = _upload(first, "b3.xlsx")
        assert over.status_code == 429, over.text
        assert "the most one browser may" in over.json()["detail"]
        assert [_upload(second, f"s{i}.xlsx").status_code for i in range(5)] == [201] * 5
        for book_id in ids:  # the first browser's work is all kept
            assert first.get(f"/workbooks/{book_id}").json()["accepted"] == [ACCEPT]
        assert len(app.state.store) == 4 and app.state.store.total_bytes() <= limits.max_bytes


def test_plain_uploads_of_one_browser_do_not_fill_the_store_for_another():
    app = create_app(ServeConfig(max_upload_bytes=200_000, store=StoreLimits(max_books=4)))
    with page_client(app) as first, page_client(app) as second:
        ids = [_upload(first, f"b{i}.xlsx").json()["id"] for i in range(4)]
        assert _upload(second, "mine.xlsx").status_code == 201  # was 409: the store was full
        assert first.get(f"/workbooks/{ids[0]}").status_code == 404  # the oldest of the holder
        assert all(first.get(f"/workbooks/{i}").status_code == 200 for i in ids[1:])


def test_the_page_carries_the_token_and_sets_the_browser_cookie():
    app = create_app(ServeConfig())
    with page_client(app) as client:
        page = client.get("/")
        assert f'<meta name="fortap-token" content="{app.state.guard.token}">' in page.text
        assert page.headers["cache-control"] == "no-store"
        assert len(client.cookies["fortap_browser"]) == 32
        with TestClient(app, base_url="http://127.0.0.1:8000") as fresh:  # a first visit
            cookie = fresh.get("/").headers["set-cookie"].lower()
        assert "max-age=2592000" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        again = page_client(create_app(ServeConfig()))
        assert again.headers[TOKEN_HEADER] != client.headers[TOKEN_HEADER]  # one per start
