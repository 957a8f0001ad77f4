"""The service belongs to the page it serves: who may reach it, and who may change its state.

A web page on another site can make the user's browser send requests to `http://127.0.0.1:8000`:
a form post needs no permission, and a DNS name that an attacker points at 127.0.0.1
("DNS rebinding") even makes the page same-origin. So `SameSiteOnly`, an ASGI middleware in
front of every route, checks three things:

- **Host**: every request must name the address the server listens on (`localhost`,
  `127.0.0.1`, `::1`, or the `--host` given); a rebound DNS name never does. Served on a
  wildcard address (`0.0.0.0`, `::`), any IP literal is accepted too, since rebinding needs a name.
- **Origin**: a state-changing request (any method but GET, HEAD and OPTIONS) that carries an
  `Origin` or `Sec-Fetch-Site` header must come from the page's own origin, or from one named
  explicitly in `Guard.origins` (the Excel add-in's, `https://localhost:PORT`, under `--addin`).
- **Token**: a state-changing request must carry `X-Fortap-Token`, a secret drawn when the
  server starts and written into the page (`<meta name="fortap-token">`). Another site cannot
  read the page, and a custom header makes the browser ask before sending, which this server
  never allows; other clients (scripts, benches) read the token from the page first.

Every route is covered, present and future, because the check runs before routing. A refusal
is a 403 with one sentence in `{"detail": ...}`.
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse

TOKEN_HEADER = "X-Fortap-Token"
TOKEN_META = "fortap-token"  # <meta name=... content=TOKEN> in the page
BROWSER_COOKIE = "fortap_browser"  # which browser uploaded a workbook (`WorkbookStore` owners)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})


@dataclass
class Guard:
    """The host names a request may name, this start's token, and a count of refusals."""

    host: str = "127.0.0.1"  # the address the server listens on
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    origins: frozenset[str] = frozenset()  # origins allowed besides the page's own
    refused: int = 0  # requests refused since the start

    def host_ok(self, host_header: str) -> bool:
        """Whether a `Host` header value names this server."""
        name = _hostname(host_header)
        if name is None:
            return False
        if name in LOOPBACK_NAMES or name == self.host.lower().strip("[]"):
            return True
        return self.host in WILDCARDS and _is_ip(name)

    def refusal(self, method: str, headers: dict[bytes, bytes]) -> str | None:
        """Why a request with these (lower-case) headers is refused; None when it may go on."""
        host = headers.get(b"host", b"").decode("latin-1")
        if not self.host_ok(host):
            shown = host[:80] or "(none)"
            return (f"refused: the Host header {shown!r} is not this server's address; "
                    "open the page at the address fortap serve printed")  # fmt: skip
        if method in SAFE_METHODS:
            return None
        origin = headers.get(b"origin")
        if origin is not None and origin.decode("latin-1") not in _own_origins(host) | self.origins:
            shown = origin.decode("latin-1")[:80]
            return f"refused: a request from another site ({shown}) cannot change this server"
        if headers.get(b"sec-fetch-site", b"same-origin") not in {b"same-origin", b"none"}:
            return "refused: a request from another site cannot change this server"
        sent = headers.get(TOKEN_HEADER.lower().encode(), b"")
        if not secrets.compare_digest(sent, self.token.encode()):
            return (f"refused: the {TOKEN_HEADER} header is missing or wrong; the page sends it, "
                    f"and other clients read it from the page's <meta name=\"{TOKEN_META}\">")  # fmt: skip
        return None


class SameSiteOnly:
    """ASGI middleware: answer 403 to what `Guard.refusal` refuses, before any route runs."""

    def __init__(self, app, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        why = self.guard.refusal(scope["method"], dict(scope["headers"]))
        if why is None:
            return await self.app(scope, receive, send)
        self.guard.refused += 1
        return await JSONResponse({"detail": why}, 403)(scope, receive, send)


def _hostname(host_header: str) -> str | None:
    """`127.0.0.1:8000` -> `127.0.0.1`, `[::1]:8000` -> `::1`; None when it is not a host."""
    try:
        parts = urlsplit("//" + host_header)
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError:
        return None
    return parts.hostname or None


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _own_origins(host: str) -> set[str]:
    return {f"http://{host}", f"https://{host}"}
