"""Security headers on every response of `fortap serve`: the page cannot be framed by another
site, its scripts and styles come only from the service itself, and nothing leaks in a
referrer.

The page loads its three scripts and its stylesheet from `/static` and sets colours through the
DOM, never as inline markup, so a strict policy costs it nothing; `data:` images are allowed
for the empty favicon.
"""

from __future__ import annotations

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")  # fmt: skip
HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


# The Excel add-in's task pane (`/addin/`, `fortap serve --addin`) lives inside Office: Excel on
# the web frames it from Microsoft's sites, so those (and only those) may frame it, and
# X-Frame-Options, which cannot name them, is left off; Office.js may come from Microsoft's CDN,
# as Office expects, else from fortap's copy. Everything else is the page's policy.
OFFICE_FRAMERS = ("https://*.officeapps.live.com https://*.office.com https://*.office365.com "
                  "https://*.microsoft365.com https://*.sharepoint.com https://*.live.com")  # fmt: skip
OFFICE_JS_CDN = "https://appsforoffice.microsoft.com"
ADDIN_PREFIX = "/addin"
ADDIN_CSP = ("default-src 'self'; "
             f"script-src 'self' {OFFICE_JS_CDN}; style-src 'self'; img-src 'self' data:; "
             "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
             f"frame-ancestors 'self' {OFFICE_FRAMERS}")  # fmt: skip
ADDIN_HEADERS = (
    (b"content-security-policy", ADDIN_CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


def headers_for(path: str) -> tuple[tuple[bytes, bytes], ...]:
    """The add-in's headers under `/addin`, the page's everywhere else."""
    addin = path == ADDIN_PREFIX or path.startswith(ADDIN_PREFIX + "/")
    return ADDIN_HEADERS if addin else HEADERS


class SecurityHeaders:
    """ASGI middleware adding `headers_for(path)` to every HTTP response (refusals and errors
    too)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        chosen = headers_for(scope["path"])

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in chosen if k not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return await self.app(scope, receive, send_with_headers)
