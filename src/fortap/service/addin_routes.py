"""The Excel add-in's two endpoints: a sheet sent once per content hash, then suggestions by hash.

The task pane (`web/addin/`) hashes what it read of the active sheet (values, formulas, number
formats of the used range) and asks `POST /addin/suggest` with the hash alone. The first time,
or after the sheet changed, the service does not know the hash and answers 404; the pane then
sends the sheet (`POST /addin/sheets`), which becomes a session like an upload (`addin_grid`),
and asks again. So a large sheet crosses the wire once per change, and a selection change costs
one small request. Both answers carry the session's id, through which the pane reaches the other
routes (findings, types, ask) unchanged. The hash is the client's name for its content: a client
sending another sheet under a known hash only misleads itself (the token keeps others out).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from fortap.service.addin_grid import write_grid
from fortap.service.guard import BROWSER_COOKIE
from fortap.service.http_errors import UnknownSheet
from fortap.service.routes import ERRORS, suggestions
from fortap.service.schemas import CellText, SheetName, SuggestOut
from fortap.service.sessions import open_session
from fortap.service.store import BROWSER_ID, UnknownWorkbook

Hash = Annotated[str, Field(pattern=r"^[0-9a-f]{16,128}$", description="The pane's content hash.")]
Scalar = str | float | bool | None


class SheetGrid(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hash: Hash
    sheet: SheetName
    address: str = Field(max_length=80, description="The used range's address, e.g. Budget!A1:F7.")
    values: list[list[Scalar]]
    formulas: list[list[Scalar]]
    formats: list[list[Scalar]]


class SheetSent(BaseModel):
    id: str = Field(description="The session the other routes name.")
    hash: str
    sheet: str
    cells: int = Field(description="Cells with content written.")


class AddinSuggest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    hash: Hash
    sheet: SheetName
    cell: CellText
    k: int = Field(5, ge=1, le=20)


class AddinSuggestOut(SuggestOut):
    id: str


class UnknownSheetHash(UnknownSheet):
    """A hash the service holds no session for (never sent, or evicted since)."""


router = APIRouter(prefix="/addin")


@router.post("/sheets", status_code=201, response_model=SheetSent, responses=ERRORS)
async def send_sheet(http: Request, body: SheetGrid) -> dict[str, Any]:
    """The active sheet's used range as the pane read it; opened once per hash."""
    state = http.app.state
    store, books = state.store, state.addin_books
    book_id, path = store.new_slot(".xlsx")
    try:
        cells = await run_in_threadpool(write_grid, path, body.sheet, body.address, body.values,
                                         body.formulas, body.formats)  # fmt: skip
        book = await run_in_threadpool(open_session, state.open_book, book_id, body.sheet + ".xlsx",
                                       ".xlsx", path, path.stat().st_size)  # fmt: skip
        owner = http.cookies.get(BROWSER_COOKIE, "")
        book.owner = owner if BROWSER_ID.fullmatch(owner) else ""
        store.put(book)
    except BaseException:
        store.discard_slot(book_id)
        raise
    books[(body.hash, body.sheet)] = book_id
    return {"id": book_id, "hash": body.hash, "sheet": body.sheet, "cells": cells}


@router.post("/suggest", response_model=AddinSuggestOut, responses=ERRORS)
async def suggest_by_hash(http: Request, body: AddinSuggest) -> JSONResponse:
    """The top-k formulas for a cell of a sheet sent before under this hash (404: send it)."""
    books = http.app.state.addin_books
    book_id = books.get((body.hash, body.sheet))
    try:
        book = http.app.state.store.get(book_id or "")
    except UnknownWorkbook:
        books.pop((body.hash, body.sheet), None)
        raise UnknownSheetHash(
            f"sheet {body.sheet!r} with hash {body.hash[:12]}… is not held here; "
            "send it with POST /addin/sheets"
        ) from None
    out = suggestions(book, body.sheet, body.cell, body.k)  # on the loop, as `routes.suggest`
    return JSONResponse({"id": book.id, **out})
