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


class SecurityHeaders:
    """ASGI middleware adding `HEADERS` to every HTTP response (refusals and errors too)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return await self.app(scope, receive, send_with_headers)
