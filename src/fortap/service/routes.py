"""The service's endpoints (a FastAPI `APIRouter`); `service.create_app` mounts them.

Each handler finds its session in `app.state.store` and calls the engine's `Suggester` under the
session's lock; the upload is opened with `app.state.open_book` and capped by
`app.state.config.max_upload_bytes`. Errors are raised as `FortapError`s and answered by
`http_errors` as 4xx with one sentence.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response

from fortap.errors import SheetError
from fortap.service.findings import findings_record
from fortap.service.grid import json_value, parse_cell_a1, parse_range, sheet_window
from fortap.service.guard import BROWSER_COOKIE
from fortap.service.http_errors import upload_too_large
from fortap.service.schemas import (
    CellWrite,
    FindingsOut,
    HealthOut,
    Problem,
    SuggestOut,
    SuggestRequest,
    WindowOut,
    WorkbookOut,
    WrittenOut,
)
from fortap.service.sessions import describe, open_session, session_sheet, user_names
from fortap.service.store import BROWSER_ID, OpenBook, UnknownWorkbook
from fortap.sheet.export import array_text, export_xlsx
from fortap.sheet.screening import SUPPORTED_SUFFIXES

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
ERRORS: dict[int | str, dict[str, Any]] = {
    s: {"model": Problem} for s in (400, 403, 404, 409, 413, 415, 422, 429)
}

router = APIRouter()


@router.post("/workbooks", status_code=201, response_model=WorkbookOut, responses=ERRORS)
async def upload(
    http: Request, file: Annotated[UploadFile, File(description="The workbook.")]
) -> dict:
    """Upload a workbook (.xlsx/.xlsm/.xls/.ods/.csv); returns its id, sheets and tables."""
    store, state = http.app.state.store, http.app.state
    suffix = _suffix(file.filename)
    owner = http.cookies.get(BROWSER_COOKIE, "")
    book_id, path = store.new_slot(suffix)
    try:
        size = await _save(file, path, state.config.max_upload_bytes)
        book = await run_in_threadpool(
            open_session, state.open_book, book_id, file.filename or "", suffix, path, size
        )
        book.owner = owner if BROWSER_ID.fullmatch(owner) else ""
        store.put(book)
    except BaseException:
        store.discard_slot(book_id)
        raise
    return describe(book)


@router.get("/workbooks/{book_id}", response_model=WorkbookOut, responses=ERRORS)
def info(http: Request, book_id: str) -> dict:
    """The upload's description again, with the formulas accepted so far."""
    return describe(http.app.state.store.get(book_id))


@router.get("/workbooks/{book_id}/sheets/{sheet}", response_model=WindowOut, responses=ERRORS)
def cells(
    http: Request,
    book_id: str,
    sheet: str,
    cell_range: Annotated[
        str | None, Query(alias="range", max_length=40, description="e.g. A1:Z100")
    ] = None,
) -> dict:
    """Cells of a range (default: the used range) with values, formulas and formats."""
    book = http.app.state.store.get(book_id)
    with book.lock, user_names(book):
        model = session_sheet(book, sheet)
        window = parse_range(cell_range, model)
        accepted = {address for (name, address) in book.accepted if name == sheet}
        return sheet_window(
            model, window, accepted, lambda address: book.suggester.value(sheet, address)
        )


@router.get(
    "/workbooks/{book_id}/sheets/{sheet}/findings",
    response_model=FindingsOut,
    responses={**ERRORS, 503: ERRORS[404]},
)
def findings(http: Request, book_id: str, sheet: str) -> dict:
    """The sheet audited as `fortap audit --sheet` audits it: typed numbers where a formula
    should be and formulas unlike their block, each with its score, evidence and fix; computed
    once per sheet until a formula is written."""
    book = http.app.state.store.get(book_id)
    with book.lock, user_names(book):  # the audit previews formulas in the session's engine
        found = book.findings.get(sheet)
        if found is None:
            model = session_sheet(book, sheet)
            found = findings_record(http.app.state.auditor, book.suggester, model)
            book.findings[sheet] = found
    return found


@router.post("/workbooks/{book_id}/suggest", response_model=SuggestOut, responses=ERRORS)
async def suggest(http: Request, book_id: str, body: SuggestRequest) -> Response:
    """The top-k formulas for a cell, best first, each with its value in the workbook."""
    # Run on the event loop, not in a worker thread: the engine holds the GIL throughout and
    # the session lock serialises calls anyway, so a thread adds only its hand-off, which on a
    # 2 ms call costs a tenth of the throughput (bench/serve.py). The price: other requests
    # wait while a suggestion is computed (milliseconds on the visible data).
    book = http.app.state.store.get(book_id)
    # the rows are the engine's own JSON: serialised directly, not re-validated per call
    return JSONResponse(suggestions(book, body.sheet, body.cell, body.k))


def suggestions(book: OpenBook, sheet: str, cell: str, k: int) -> dict[str, Any]:
    """`POST .../suggest`'s answer (the shape of `fortap suggest --json`, `book` the upload's
    name), for this route and the add-in's (`addin_routes`)."""
    address = _address(book, sheet, cell)
    with book.lock, user_names(book):
        found = book.suggester.suggest(sheet, address, k)
    rows = [s.to_json() for s in found]
    for row in rows:
        row["value"] = json_value(row["value"])
    return {"book": book.name, "sheet": sheet, "cell": address, "suggestions": rows}


@router.post("/workbooks/{book_id}/cells", response_model=WrittenOut, responses=ERRORS)
def write(http: Request, book_id: str, body: CellWrite) -> dict:
    """Write an accepted formula into the session's copy; returns its recomputed value."""
    book = http.app.state.store.get(book_id)
    address = _address(book, body.sheet, body.cell)
    with book.lock, user_names(book):
        return accept_formula(book, body.sheet, address, body.formula, body.array)


def accept_formula(
    book: OpenBook, sheet: str, address: str, formula: str, array: bool | None = None
) -> dict[str, Any]:
    """Write an accepted formula into the session (the engine, `accepted`, the caches), as
    `POST .../cells` does for a suggestion, a fix or an answer; the caller holds the lock and
    has checked the sheet and the A1 text. Returns the route's `WrittenOut`."""
    array = _is_array(book, sheet, address, formula, array)
    book.suggester.set_formula(sheet, address, formula)
    shown = book.suggester.current(sheet, address)
    if array:  # the preview engine wrote it as an ordinary formula: formulon's value
        row, col = parse_cell_a1(address, sheet)
        shown = book.suggester.previewer.preview(sheet, row + 1, col + 1, formula)
    text = array_text(formula) if array else formula
    book.accepted[(sheet, address)] = text
    book.cell_types.pop(sheet, None)  # typed before the sheet held this formula
    book.findings.clear()  # a finding compares values, which this write may change anywhere
    book.recovered.clear()  # recovery reads values too (`recover_routes` keeps its own writes)
    return {
        "sheet": sheet,
        "cell": address,
        "formula": text,
        "value": None if shown.error else json_value(shown.value),
        "error": shown.error,
    }


@router.get(
    "/workbooks/{book_id}/download",
    response_class=Response,
    responses={200: {"content": {XLSX: {}}}, **ERRORS},
)
def download(http: Request, book_id: str) -> Response:
    """The workbook as .xlsx with the accepted formulas; header X-Fortap-Not-Kept lists losses."""
    book = http.app.state.store.get(book_id)
    with book.lock:
        accepted = dict(book.accepted)
    try:
        data = export_xlsx(book.path, book.model(), accepted)
    except FileNotFoundError:  # evicted while this request ran
        raise UnknownWorkbook(book_id) from None
    book.exported = accepted  # what the user now holds; the store may evict the book again
    headers = {
        "Content-Disposition": f'attachment; filename="{_download_name(book.name)}"',
        "X-Fortap-Not-Kept": json.dumps(book.info["not_kept"]),
    }
    return Response(data, media_type=XLSX, headers=headers)


@router.delete("/workbooks/{book_id}", status_code=204, responses=ERRORS)
def delete(http: Request, book_id: str) -> Response:
    """Forget the workbook and delete its file."""
    http.app.state.store.delete(book_id)
    return Response(status_code=204)


@router.get("/health", response_model=HealthOut)
def health(http: Request) -> dict:
    store = http.app.state.store
    return {"status": "ok", "workbooks": len(store), "bytes": store.total_bytes()}


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


def _is_array(book: OpenBook, sheet: str, address: str, formula: str, wanted=None) -> bool:
    """Whether `formula` at `address` is an array formula: `wanted` when given (then noted for
    its copies), else whether the workbook holds it as one (`preview_array`)."""
    arrays = book.suggester.previewer.arrays
    row, col = parse_cell_a1(address, sheet)
    if wanted is None:
        return arrays.holds(sheet, row + 1, col + 1, formula)
    if wanted:
        arrays.add(sheet, row + 1, col + 1, formula)
    return wanted


def _address(book: OpenBook, sheet: str, cell: str) -> str:
    """The cell's canonical A1 text (`$b$7` -> `B7`) after checking sheet and syntax."""
    from fortap.sheet.model import a1

    session_sheet(book, sheet)
    return a1(*parse_cell_a1(cell, sheet))


def _download_name(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).stem)[:60] or "workbook"
    return f"{stem}-fortap.xlsx"
