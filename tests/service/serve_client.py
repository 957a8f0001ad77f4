"""A test client that uses the service as its page does: from the page's own address, with the
token the page carries and the cookie it sets (`fortap.service.guard`)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from fortap.service.guard import TOKEN_HEADER

ORIGIN = "http://127.0.0.1:8000"


def page_client(app, origin: str = ORIGIN) -> TestClient:
    """A client that has loaded the page at `origin`: it sends the page's token and cookie."""
    client = TestClient(app, base_url=origin)
    page = client.get("/")
    assert page.status_code == 200, page.text
    client.headers[TOKEN_HEADER] = page_token(page.text)
    return client


def page_token(html: str) -> str:
    found = re.search(r'<meta name="fortap-token" content="([^"]+)">', html)
    assert found, "the page carries no token"
    return found.group(1)
