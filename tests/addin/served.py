"""`fortap serve --addin` for the add-in's tests: the app under uvicorn over HTTPS in a thread,
with a certificate made by `service.certs`, and where npm put Office.js and the mock."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"
OFFICE_JS = NODE_MODULES / "@microsoft" / "office-js" / "dist"
MOCK_LIB = NODE_MODULES / "office-addin-mock" / "lib"


@contextmanager
def addin_server(cert_dir: Path, auditor=None):
    """Yields (https URL, app) of `create_app` with the add-in on, on a free loopback port."""
    import uvicorn

    from fortap.service.app import ServeConfig, create_app
    from fortap.service.certs import ensure_cert

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    cert, key = ensure_cert(cert_dir)
    office = OFFICE_JS if (OFFICE_JS / "office.js").is_file() else None
    config = ServeConfig(port=port, quiet=True, addin=True, tls=(cert, key), office_js=office)
    app = create_app(config, auditor=auditor)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           ssl_certfile=str(cert), ssl_keyfile=str(key)))  # fmt: skip
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start in 20 s"
        time.sleep(0.02)
    try:
        yield f"https://localhost:{port}", app
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
