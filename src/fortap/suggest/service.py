"""`fortap serve`: the suggestion engine as a local HTTP service and a web page (FastAPI).

The service adds sessions, limits and serialisation, no suggestion logic: each upload is
opened once with the engine's `Suggester` and kept in a `WorkbookStore` under a random id;
`suggest` and `cells` call into that `Suggester` under the session's lock. Endpoints
(OpenAPI at `/openapi.json`):

    POST   /workbooks                          upload (multipart `file`) -> id, sheets, tables
    GET    /workbooks/{id}                     the same description again
    GET    /workbooks/{id}/sheets/{sheet}      cells of `?range=A1:Z100` for the page to draw
    POST   /workbooks/{id}/suggest             {sheet, cell, k} -> ranked suggestions
    POST   /workbooks/{id}/cells               {sheet, cell, formula}: accept a formula
    GET    /workbooks/{id}/download            .xlsx with the accepted formulas
    DELETE /workbooks/{id}
    GET    /health

Bad requests get a 4xx and `{"detail": one sentence}` (`suggest/http_errors.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, File, Query, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles

from fortap.errors import FortapError, SheetError
from fortap.sheet.screening import SUPPORTED_SUFFIXES
from fortap.suggest import http_errors
from fortap.suggest.export import export_xlsx
from fortap.suggest.grid import json_value, parse_cell_a1, parse_range, sheet_window
from fortap.suggest.http_errors import UnknownSheet, UploadLimit, upload_too_large
from fortap.suggest.schemas import (
    CellWrite,
    HealthOut,
    Problem,
    SuggestOut,
    SuggestRequest,
    WindowOut,
    WorkbookOut,
    WrittenOut,
)
from fortap.suggest.sessions import describe, open_session, renamed
from fortap.suggest.store import OpenBook, StoreLimits, UnknownWorkbook, WorkbookStore

WEB = Path(__file__).parent / "web"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
ERRORS: dict[int | str, dict[str, Any]] = {s: {"model": Problem} for s in (400, 404, 413, 415, 422)}


@dataclass(frozen=True)
class ServeConfig:
    """How `fortap serve` runs; every field is a command-line option."""

    host: str = "127.0.0.1"  # loopback only unless the user says otherwise
    port: int = 8000
    model: Path | None = None  # a formula-prediction model folder for the engine's model source
    ranker: Path | None = None  # a ranker file; None = the one shipped in the package
    max_upload_bytes: int = 20 * 2**20
    store: StoreLimits = StoreLimits()
    quiet: bool = False  # no access log (the load bench runs this way)

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
        from fortap.suggest.engine import Suggester

        # LibreOffice's .xlsx of an .xls/.ods goes beside the upload, so it is deleted with it
        limits = ReadLimits(max_file_bytes=config.max_upload_bytes)
        return Suggester.open(
            path, ranker=config.ranker, model=config.model, limits=limits, cache_dir=path.parent
        )

    return open_book


def create_app(config: ServeConfig = ServeConfig(), opener: Opener | None = None) -> FastAPI:
    """The FastAPI app; its store's folder is deleted when the app shuts down."""
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
    )
    app.state.store = store
    http_errors.install(app)
    app.add_middleware(UploadLimit, limit=config.max_upload_bytes)

    @app.post("/workbooks", status_code=201, response_model=WorkbookOut, responses=ERRORS)
    async def upload(file: Annotated[UploadFile, File(description="The workbook.")]) -> dict:
        """Upload a workbook (.xlsx/.xlsm/.xls/.ods/.csv); returns its id, sheets and tables."""
        suffix = _suffix(file.filename)
        book_id, path = store.new_slot(suffix)
        try:
            size = await _save(file, path, config.max_upload_bytes)
            book = await run_in_threadpool(
                open_session, open_book, book_id, file.filename or "", suffix, path, size
            )
        except BaseException:
            store.discard_slot(book_id)
            raise
        store.put(book)
        return describe(book)

    @app.get("/workbooks/{book_id}", response_model=WorkbookOut, responses=ERRORS)
    def info(book_id: str) -> dict:
        """The upload's description again, with the formulas accepted so far."""
        return describe(store.get(book_id))

    @app.get("/workbooks/{book_id}/sheets/{sheet}", response_model=WindowOut, responses=ERRORS)
    def cells(
        book_id: str,
        sheet: str,
        cell_range: Annotated[
            str | None, Query(alias="range", max_length=40, description="e.g. A1:Z100")
        ] = None,
    ) -> dict:
        """Cells of a range (default: the used range) with values, formulas and formats."""
        book = store.get(book_id)
        with book.lock, _named(book):
            model = _sheet(book, sheet)
            window = parse_range(cell_range, model)
            accepted = {address for (name, address) in book.accepted if name == sheet}
            return sheet_window(
                model, window, accepted, lambda address: book.suggester.value(sheet, address)
            )

    @app.post("/workbooks/{book_id}/suggest", response_model=SuggestOut, responses=ERRORS)
    def suggest(book_id: str, request: SuggestRequest) -> dict:
        """The top-k formulas for a cell, best first, each with its value in the workbook."""
        book = store.get(book_id)
        address = _address(book, request.sheet, request.cell)
        with book.lock, _named(book):
            found = book.suggester.suggest(request.sheet, address, request.k)
        rows = [s.to_json() for s in found]
        for row in rows:
            row["value"] = json_value(row["value"])
        return {"sheet": request.sheet, "cell": address, "suggestions": rows}

    @app.post("/workbooks/{book_id}/cells", response_model=WrittenOut, responses=ERRORS)
    def write(book_id: str, request: CellWrite) -> dict:
        """Write an accepted formula into the session's copy; returns its recomputed value."""
        book = store.get(book_id)
        address = _address(book, request.sheet, request.cell)
        with book.lock, _named(book):
            book.suggester.set_formula(request.sheet, address, request.formula)
            value = book.suggester.value(request.sheet, address)
            book.accepted[(request.sheet, address)] = request.formula
        error = value if isinstance(value, str) and _EXCEL_ERROR.fullmatch(value) else None
        return {
            "sheet": request.sheet,
            "cell": address,
            "formula": request.formula,
            "value": None if error else json_value(value),
            "error": error,
        }

    @app.get(
        "/workbooks/{book_id}/download",
        response_class=Response,
        responses={200: {"content": {XLSX: {}}}, **ERRORS},
    )
    def download(book_id: str) -> Response:
        """The workbook as .xlsx with the accepted formulas; header X-Fortap-Not-Kept lists losses."""
        book = store.get(book_id)
        with book.lock:
            accepted = dict(book.accepted)
        try:
            data = export_xlsx(book.path, book.model(), accepted)
        except FileNotFoundError:  # evicted while this request ran
            raise UnknownWorkbook(book_id) from None
        headers = {
            "Content-Disposition": f'attachment; filename="{_download_name(book.name)}"',
            "X-Fortap-Not-Kept": json.dumps(book.info["not_kept"]),
        }
        return Response(data, media_type=XLSX, headers=headers)

    @app.delete("/workbooks/{book_id}", status_code=204, responses=ERRORS)
    def delete(book_id: str) -> Response:
        """Forget the workbook and delete its file."""
        store.delete(book_id)
        return Response(status_code=204)

    @app.get("/health", response_model=HealthOut)
    def health() -> dict:
        return {"status": "ok", "workbooks": len(store), "bytes": store.total_bytes()}

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(WEB / "index.html")

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app


_EXCEL_ERROR = re.compile(r"#N/A|#[A-Z0-9/_]+[!?]")  # #DIV/0!, #NAME?, #CIRC!, ...


def _suffix(filename: str | None) -> str:
    """The upload's lower-case suffix if the reader supports it; the name is never a path."""
    suffix = Path(filename or "").suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        shown = (filename or "")[:80] or "(no file name)"
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise SheetError(
            "unsupported_extension",
            f"cannot read {shown!r}: unsupported file type {suffix or '(none)'!r} "
            f"(supported: {supported})",
        )
    return suffix


async def _save(file: UploadFile, path: Path, limit: int) -> int:
    size = 0
    with path.open("wb") as out:
        while chunk := await file.read(1 << 20):
            size += len(chunk)
            if size > limit:
                raise upload_too_large(limit)
            out.write(chunk)
    return size


def _sheet(book: OpenBook, sheet: str):
    for model in book.model().sheets:
        if model.name == sheet:
            return model
    names = ", ".join(repr(s.name) for s in book.model().sheets)
    raise UnknownSheet(f"no sheet {sheet[:40]!r} in {book.name!r} (its sheets: {names})")


def _address(book: OpenBook, sheet: str, cell: str) -> str:
    """The cell's canonical A1 text (`$b$7` -> `B7`) after checking sheet and syntax."""
    from fortap.sheet.model import a1

    _sheet(book, sheet)
    return a1(*parse_cell_a1(cell, sheet))


@contextmanager
def _named(book: OpenBook):
    """Engine errors name the upload as the user called it, not the stored file."""
    try:
        yield
    except FortapError as err:
        raise renamed(err, book.path.name, book.name or "the upload") from None


def _download_name(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).stem)[:60] or "workbook"
    return f"{stem}-fortap.xlsx"


def run_serve(config: ServeConfig) -> None:
    """Start uvicorn with the app; Ctrl+C stops it and deletes the uploads."""
    import uvicorn

    if config.host not in {"127.0.0.1", "localhost", "::1"}:
        print(f"warning: serving on {config.host}: anyone who can reach it can upload workbooks")
    print(f"fortap serve: http://{config.host}:{config.port}/  (Ctrl+C stops; uploads are deleted)")
    uvicorn.run(
        create_app(config),
        host=config.host,
        port=config.port,
        log_level="warning" if config.quiet else "info",
        access_log=not config.quiet,
    )
