"""`fortap serve --addin` for the add-in's tests: the app under uvicorn over HTTPS in a thread,
with a certificate made by `service.certs`, and where npm put Office.js and the mock."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from tests.threaded_server import threaded_server

NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"
OFFICE_JS = NODE_MODULES / "@microsoft" / "office-js" / "dist"
MOCK_LIB = NODE_MODULES / "office-addin-mock" / "lib"


@contextmanager
def addin_server(cert_dir: Path, auditor=None):
    """Yields (https URL, app) of `create_app` with the add-in on, on a free loopback port."""
    from fortap.service.app import ServeConfig, create_app
    from fortap.service.certs import ensure_cert

    cert, key = ensure_cert(cert_dir)
    office = OFFICE_JS if (OFFICE_JS / "office.js").is_file() else None

    def app_of(port: int):
        config = ServeConfig(port=port, quiet=True, addin=True, tls=(cert, key), office_js=office)
        return create_app(config, auditor=auditor)

    with threaded_server(app_of, ssl_certfile=str(cert), ssl_keyfile=str(key)) as (port, app):
        yield f"https://localhost:{port}", app
