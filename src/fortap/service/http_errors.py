"""How the service answers bad requests: one `{"detail": message}` and a 4xx status, no traceback.

Input errors are `FortapError`s and map to a status by class (and, for a `SheetError`, by its
stable `reason`); request-shape errors from FastAPI's validation become one sentence naming the
field; the upload cap is enforced while the body streams in (`UploadLimit`), before
python-multipart has spooled a large file. Anything else is a bug: the client gets a 500 with
the error's type only, and the traceback goes to the server's log.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from fortap.errors import FortapError, SheetError
from fortap.service.findings import NoAuditor
from fortap.service.recovered import SheetChanged
from fortap.service.shipped_models import ModelMissing
from fortap.service.store import OverQuota, StoreFull, UnknownWorkbook

log = logging.getLogger("fortap.serve")

# SheetError.reason -> HTTP status; any other reason is 422 (the file is readable in principle)
SHEET_STATUS = {
    "file_too_large": 413,
    "unsupported_extension": 415,
    "not_a_spreadsheet": 415,
    "empty_workbook": 422,
    "encrypted": 422,
}


class UnknownSheet(FortapError):
    """A sheet name the workbook does not have."""


class BadUpload(FortapError):
    """An upload without a usable file part or with an unsupported file name."""


def upload_too_large(limit: int) -> HTTPException:
    # an HTTPException, not a FortapError: FastAPI re-raises these from its body parsing as they are
    return HTTPException(
        413, f"upload is over the limit of {limit:,} bytes; "
        "start the server with a larger --max-upload-mb to accept it",
    )  # fmt: skip


def status_of(err: FortapError) -> int:
    if isinstance(err, UnknownWorkbook | UnknownSheet):
        return 404
    if isinstance(err, SheetError):
        return SHEET_STATUS.get(err.reason, 422)
    if isinstance(err, BadUpload):
        return 400
    if isinstance(err, StoreFull | SheetChanged):
        return 409
    if isinstance(err, OverQuota):
        return 429
    if isinstance(err, ModelMissing | NoAuditor):
        return 503  # the request was fine; this install lacks the model, this start the audit
    return 422  # grid.BadRange, a bad cell or formula from the engine, a bad min_score, ...


def validation_message(err: RequestValidationError) -> str:
    """FastAPI's list of validation errors -> one sentence about the first (and how many more)."""
    errors = err.errors()
    if not errors:
        return "malformed request"
    first = errors[0]
    if first.get("type") == "json_invalid":
        return "request body is not valid JSON"
    if first.get("loc") == ("body",) and first.get("type") in {
        "model_attributes_type",
        "dict_type",
    }:
        return "request body must be a JSON object (Content-Type: application/json)"
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


def install(app: FastAPI) -> None:
    """Register the handlers above on `app`."""

    @app.exception_handler(FortapError)
    async def _fortap(_: Request, err: FortapError) -> JSONResponse:
        return JSONResponse({"detail": str(err)}, status_code=status_of(err))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, err: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_message(err)}, status_code=422)

    @app.exception_handler(Exception)
    async def _bug(request: Request, err: Exception) -> JSONResponse:
        log.exception("internal error on %s %s", request.method, request.url.path)
        detail = f"internal error ({type(err).__name__}); the server log has the details"
        return JSONResponse({"detail": detail}, status_code=500)


class UploadLimit:
    """ASGI middleware: refuse a `POST /workbooks` body over `limit` bytes as it streams in."""

    def __init__(self, app, limit: int, path: str = "/workbooks") -> None:
        self.app = app
        self.limit = limit
        self.path = path
        self.overhead = 64 * 1024  # multipart boundaries and headers around the file

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path:
            return await self.app(scope, receive, send)
        cap = self.limit + self.overhead
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            err = upload_too_large(self.limit)
            return await JSONResponse({"detail": err.detail}, 413)(scope, receive, send)
        seen = 0

        async def counted():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > cap:
                raise upload_too_large(self.limit)
            return message

        return await self.app(scope, counted, send)
