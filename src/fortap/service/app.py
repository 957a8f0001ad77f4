"""`fortap serve`: the suggestion engine as a local HTTP service and a web page (FastAPI).

The service adds sessions, limits and serialisation, no suggestion logic: each upload is
opened once with the engine's `Suggester` and kept in a `WorkbookStore` under a random id;
the endpoints (`routes.py` beside this one) call into that `Suggester` under the session's lock;
the cell types and the ask box (`model_routes.py`) use the shipped models, loaded on first use;
the findings toggle audits the open sheet with the `Auditor` it is handed (`findings.py`: the
audit is a later stage, so its caller passes it in), and the page writes a finding's fix back
as it accepts a suggestion; the "Recover formulas" button puts formulas back where the open
sheet holds only their values (`recovered.py`: `fortap recover` on one sheet), and accepts them
as it accepts a suggestion.
This module builds the app (`create_app`) and runs it (`run_serve`). Endpoints (OpenAPI at
`/openapi.json`; the page at `/`, its files under `/static`):

    POST   /workbooks                          upload (multipart `file`) -> id, sheets, tables
    GET    /workbooks/{id}                     the same description again
    GET    /workbooks/{id}/sheets/{sheet}      cells of `?range=A1:Z100` for the page to draw
    POST   /workbooks/{id}/suggest             {sheet, cell, k} -> ranked suggestions
    GET    /workbooks/{id}/sheets/{sheet}/types   each cell's type by the cell-type model
    GET    /workbooks/{id}/sheets/{sheet}/findings   the sheet's audit: cell, kind, score, fix
    POST   /workbooks/{id}/ask                 {sheet, question} -> answer, cells, formula
    POST   /workbooks/{id}/cells               {sheet, cell, formula}: accept a formula
    POST   /workbooks/{id}/recover             {sheet, min_score} -> formulas put back (not written)
    POST   /workbooks/{id}/recover/accept      {sheet, min_score, cells}: accept them (null: all)
    GET    /workbooks/{id}/download            .xlsx with the accepted formulas
    DELETE /workbooks/{id}
    GET    /health
    POST   /addin/sheets                       (--addin) the pane's sheet, once per content hash
    POST   /addin/suggest                      (--addin) {hash, sheet, cell, k} -> suggestions
    GET    /addin/taskpane.html                (--addin) the Excel task pane (`web/addin/`)

Bad requests get a 4xx and `{"detail": one sentence}` (`suggest/http_errors.py`). Only the page
itself may change state: `guard.py` refuses other hosts and other sites, and every POST and
DELETE needs the token the page carries. The page also sets a cookie naming the browser, so
that one browser's uploads never evict another's (`store.py`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from fortap.service import http_errors
from fortap.service.findings import Auditor
from fortap.service.guard import BROWSER_COOKIE, TOKEN_META, Guard, SameSiteOnly
from fortap.service.headers import SecurityHeaders
from fortap.service.http_errors import UploadLimit
from fortap.service.model_routes import router as model_router
from fortap.service.recover_routes import router as recover_router
from fortap.service.routes import router
from fortap.service.store import BROWSER_ID, StoreLimits, WorkbookStore

WEB = Path(__file__).parent / "web"


@dataclass(frozen=True)
class ServeConfig:
    """How `fortap serve` runs; every field but the two shipped-model folders is a command-line
    option (those default to the shipped models; tests point them elsewhere)."""

    host: str = "127.0.0.1"  # loopback only unless the user says otherwise
    port: int = 8000
    model: Path | None = None  # a formula-prediction model folder for the engine's model source
    ranker: Path | None = None  # a ranker file; None = the one shipped in the package
    cell_type_model: Path | None = None  # None = models/cell-types (the colouring toggle)
    qa_model: Path | None = None  # None = models/table-qa (the ask box)
    max_upload_bytes: int = 20 * 2**20
    store: StoreLimits = StoreLimits()
    quiet: bool = False  # no access log (the load bench runs this way)
    addin: bool = False  # also serve the Excel add-in's task pane and routes (`/addin/`)
    tls: tuple[Path, Path] | None = None  # (certificate, key) PEM files: serve HTTPS
    office_js: Path | None = None  # Office.js's dist folder (npm's @microsoft/office-js), if any

    def __post_init__(self) -> None:
        if self.max_upload_bytes <= 0:
            raise ValueError(
                f"ServeConfig.max_upload_bytes must be positive, got {self.max_upload_bytes}"
            )
        if not 0 <= self.port <= 65535:
            raise ValueError(f"ServeConfig.port must be 0..65535, got {self.port}")


Opener = Callable[[Path], Any]


def engine_opener(config: ServeConfig) -> Opener:
    """`path -> Suggester` with the configured ranker and model."""

    def open_book(path: Path):
        from fortap.sheet.limits import ReadLimits
        from fortap.suggest.api import Suggester

        # LibreOffice's .xlsx of an .xls/.ods goes beside the upload, so it is deleted with it
        limits = ReadLimits(max_file_bytes=config.max_upload_bytes)
        return Suggester.open(
            path, ranker=config.ranker, model=config.model, limits=limits, cache_dir=path.parent
        )

    return open_book


COOKIE_DAYS = 30  # the browser cookie outlives a browser restart, so its workbooks stay its own


def create_app(
    config: ServeConfig = ServeConfig(),
    opener: Opener | None = None,
    auditor: Auditor | None = None,
) -> FastAPI:
    """The FastAPI app; its store's folder is deleted when the app shuts down. Without an
    `auditor` the findings toggle answers 503 (`findings.NoAuditor`)."""
    store = WorkbookStore(config.store)
    open_book = opener or engine_opener(config)

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        try:
            yield
        finally:
            store.close()

    app = FastAPI(
        title="fortap suggest",
        summary="Ranked formula suggestions for the cells of an uploaded workbook.",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI and ReDoc load their scripts from a CDN; the spec is enough
        redoc_url=None,
    )
    app.state.store = store
    app.state.config = config
    app.state.open_book = open_book
    app.state.auditor = auditor
    app.state.addin_books = {}  # (hash, sheet) -> session id (`addin_routes`)
    origins = frozenset({addin_origin(config)}) if config.addin else frozenset()
    app.state.guard = guard = Guard(host=config.host, origins=origins)
    http_errors.install(app)
    app.add_middleware(UploadLimit, limit=config.max_upload_bytes)
    app.add_middleware(SameSiteOnly, guard=guard)  # runs before any route
    app.add_middleware(SecurityHeaders)  # added last: wraps every response, refusals too
    app.include_router(router)
    app.include_router(model_router)
    app.include_router(recover_router)
    html = page_html(guard.token)

    @app.get("/", include_in_schema=False)
    def page(request: Request) -> HTMLResponse:
        response = HTMLResponse(html, headers={"Cache-Control": "no-store"})
        if not BROWSER_ID.fullmatch(request.cookies.get(BROWSER_COOKIE, "")):
            response.set_cookie(BROWSER_COOKIE, secrets.token_hex(16), max_age=COOKIE_DAYS * 86400,
                                httponly=True, samesite="strict")  # fmt: skip
        return response

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    if config.addin:
        mount_addin(app, guard.token, config.office_js)
    return app


def addin_origin(config: ServeConfig) -> str:
    """The origin the add-in's manifest names: Office loads the task pane from it."""
    return f"https://localhost:{config.port}"


def mount_addin(app: FastAPI, token: str, office_js: Path | None) -> None:
    """The task pane (with this start's token), its files, the add-in's routes and, when the
    npm package is there, Office.js itself (for offline use and the tests)."""
    from fortap.service.addin_routes import router as addin_router

    app.include_router(addin_router)
    pane = page_html(token, WEB / "addin" / "taskpane.html")

    @app.get("/addin/taskpane.html", include_in_schema=False)
    def taskpane() -> HTMLResponse:
        return HTMLResponse(pane, headers={"Cache-Control": "no-store"})

    app.mount("/addin/static", StaticFiles(directory=WEB / "addin"), name="addin-static")
    if office_js is not None and (office_js / "office.js").is_file():
        app.mount("/addin/office-js", StaticFiles(directory=office_js), name="office-js")


def page_html(token: str, path: Path = WEB / "index.html") -> str:
    """The page (or the task pane) with this start's token in its `<meta name="fortap-token">`."""
    html = path.read_text(encoding="utf-8")
    empty = f'<meta name="{TOKEN_META}" content="">'
    if empty not in html:
        raise RuntimeError(f"{path.name} has no {empty}")  # a packaging bug, not input
    return html.replace(empty, f'<meta name="{TOKEN_META}" content="{token}">')


def run_serve(config: ServeConfig, auditor: Auditor | None = None) -> None:
    """Start uvicorn with the app; Ctrl+C stops it and deletes the uploads."""
    import uvicorn

    if config.host not in {"127.0.0.1", "localhost", "::1"}:
        print(f"warning: serving on {config.host}: anyone who can reach it can upload workbooks")
    scheme = "https" if config.tls else "http"
    print(f"fortap serve: {scheme}://{config.host}:{config.port}/  "
          "(Ctrl+C stops; uploads are deleted)")  # fmt: skip
    if config.addin:
        print(f"Excel add-in: {addin_origin(config)}/addin/taskpane.html "
              "(fortap addin manifest writes the manifest to sideload)")  # fmt: skip
    tls = {"ssl_certfile": str(config.tls[0]), "ssl_keyfile": str(config.tls[1])} if config.tls else {}
    uvicorn.run(
        create_app(config, auditor=auditor),
        host=config.host,
        port=config.port,
        log_level="warning" if config.quiet else "info",
        access_log=not config.quiet,
        **tls,
    )
