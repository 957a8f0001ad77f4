"""The endpoints backed by the shipped models (a second `APIRouter`; `create_app` mounts it):

    GET  /workbooks/{id}/sheets/{sheet}/types   each cell's type and probability (`cell_types`)
    POST /workbooks/{id}/ask                    {sheet, question} -> the answer and its formula

The types only read the session, so like every GET they pass the guard's host check and need no
token; the ask box posts, as the suggestion list does, and its formula is written back through
`POST /workbooks/{id}/cells` like an accepted suggestion. Both run in FastAPI's worker threads:
the first call loads its model, which takes seconds for the table-QA encoder. A model folder
that is not installed is a 503 naming it (`shipped_models.ModelMissing`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from fortap.service.answers import answer_record
from fortap.service.cell_types import typed_record
from fortap.service.routes import ERRORS
from fortap.service.schemas import AnswerOut, AskRequest, CellTypesOut
from fortap.service.sessions import session_sheet, user_names
from fortap.tasks.table_qa.ask import largest_table

MODEL_ERRORS = {**ERRORS, 503: ERRORS[404]}

router = APIRouter()


@router.get(
    "/workbooks/{book_id}/sheets/{sheet}/types",
    response_model=CellTypesOut,
    responses=MODEL_ERRORS,
)
def cell_types(http: Request, book_id: str, sheet: str) -> dict[str, Any]:
    """Each cell with content typed (metadata, notes, data, left/top attribute, derived) by the
    cell-type model, with its probability and a colour legend; computed once per sheet."""
    book = http.app.state.store.get(book_id)
    with book.lock, user_names(book):
        found = book.cell_types.get(sheet)
        model = session_sheet(book, sheet) if found is None else None
    if found is None:
        with user_names(book):  # typed unlocked, as `ask` answers: a write replaces the sheet
            found = typed_record(model, http.app.state.config.cell_type_model)
        with book.lock:
            if session_sheet(book, sheet) is model:  # not written meanwhile: keep it
                book.cell_types[sheet] = found
    return found


@router.post("/workbooks/{book_id}/ask", response_model=AnswerOut, responses=MODEL_ERRORS)
def ask(http: Request, book_id: str, body: AskRequest) -> dict[str, Any]:
    """The table-QA model's answer to a question over the sheet's largest table: the values,
    the operation, the cells it used and an Excel formula computing it in the sheet."""
    book = http.app.state.store.get(book_id)
    with book.lock, user_names(book):
        table = largest_table(session_sheet(book, body.sheet))  # as `fortap ask` picks it
    with user_names(book):  # the model runs unlocked: a write replaces the sheet, never changes it
        return answer_record(table, body.question, http.app.state.config.qa_model)
