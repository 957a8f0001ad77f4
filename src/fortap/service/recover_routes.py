"""The "Recover formulas" endpoints (a third `APIRouter`; `create_app` mounts it):

    POST /workbooks/{id}/recover          {sheet, min_score} -> the formulas put back
    POST /workbooks/{id}/recover/accept   {sheet, min_score, cells}: accept them (cells null: all)

Both post, so the guard asks for the page's token (recovery reads every cell of the sheet, and
accepting writes the session). Recovery runs in FastAPI's worker threads on the sheet as the
session holds it, unlocked (a write replaces the sheet, never changes it); the list is cached in
the session and accepting takes it from there (`recovered.py`). Accepted formulas are written as
`POST /workbooks/{id}/cells` writes one (`routes.accept_formula`), so they are in the session's
`accepted`, the page's grid and the download.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from fortap.service.grid import parse_cell_a1
from fortap.service.recovered import (
    MAX_ACCEPTED,
    SheetChanged,
    check_min_score,
    chosen,
    record,
    recovered_rows,
    still_typed,
)
from fortap.service.routes import ERRORS, accept_formula
from fortap.service.schemas import (
    RecoverAccept,
    RecoverAcceptOut,
    RecoverOut,
    RecoverRequest,
)
from fortap.service.sessions import session_sheet, user_names
from fortap.service.store import OpenBook
from fortap.sheet.model import a1

router = APIRouter()


@router.post("/workbooks/{book_id}/recover", response_model=RecoverOut, responses=ERRORS)
def recover(http: Request, book_id: str, body: RecoverRequest) -> dict[str, Any]:
    """The formulas `fortap recover --sheet` puts back on the sheet: where its typed numbers
    obey a formula of their block exactly, scored at least `min_score`; nothing is written."""
    min_score = check_min_score(body.min_score)
    book = http.app.state.store.get(book_id)
    rows, model = _found(book, body.sheet, min_score)
    return record(model, min_score, still_typed(rows, model))


@router.post(
    "/workbooks/{book_id}/recover/accept", response_model=RecoverAcceptOut, responses=ERRORS
)
def accept(http: Request, book_id: str, body: RecoverAccept) -> dict[str, Any]:
    """Accept recovered formulas (those of `cells`, or all when it is null) as accepted
    suggestions are: at most 500 per request, in reading order; `left` counts those still to
    accept (ask again for the next ones)."""
    min_score = check_min_score(body.min_score)
    book = http.app.state.store.get(book_id)
    cells = None
    if body.cells is not None:
        cells = list(dict.fromkeys(a1(*parse_cell_a1(c, body.sheet)) for c in body.cells))
    rows, model = _found(book, body.sheet, min_score)
    with book.lock, user_names(book):
        sheet = session_sheet(book, body.sheet)
        # written meanwhile: fine if only by recovered formulas, which keep the cached list
        if sheet is not model and book.recovered.get((body.sheet, min_score)) is not rows:
            raise SheetChanged(
                f"sheet {body.sheet!r} was written while its formulas were recovered; "
                "recover them again"
            )
        picked = chosen(still_typed(rows, sheet), cells, body.sheet, min_score)
        now, rest = picked[:MAX_ACCEPTED], picked[MAX_ACCEPTED:]
        # a recovered formula gives the value its cell holds: the lists found stay true
        kept = dict(book.recovered)
        written = [accept_formula(book, body.sheet, row["cell"], row["formula"], False)
                   for row in now]  # fmt: skip
        book.recovered.update(kept)
    return {"sheet": body.sheet, "min_score": min_score, "written": written, "left": len(rest)}


def _found(book: OpenBook, sheet: str, min_score: float) -> tuple[list[dict], Any]:
    """The sheet's recovered rows, from the session's cache or found now, and the sheet as the
    session held it when they were looked up (rows accepted since are still in the list)."""
    with book.lock, user_names(book):
        model = session_sheet(book, sheet)
        rows = book.recovered.get((sheet, min_score))
    if rows is None:
        with user_names(book):  # searched unlocked, as the cell types are typed
            rows = recovered_rows(model, min_score)
        with book.lock:
            if session_sheet(book, sheet) is model:  # not written meanwhile: keep it
                book.recovered[(sheet, min_score)] = rows
    return rows, model
