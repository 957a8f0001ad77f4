"""An ASGI app under uvicorn in a daemon thread on a free 127.0.0.1 port, for the browser tests
(the web page, and the add-in over HTTPS)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def threaded_server(app_of: Callable[[int], object], **ssl: str) -> Iterator[tuple[int, object]]:
    """Yields (port, app), `app_of(port)` the app served; `ssl`: uvicorn's `ssl_certfile` and
    `ssl_keyfile` for HTTPS. Waits at most 20 s for the start; stops the server on exit."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = app_of(port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, **ssl))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start in 20 s"
        time.sleep(0.02)
    try:
        yield port, app
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
