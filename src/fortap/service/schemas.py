"""The service's request and response bodies (pydantic), which also make its OpenAPI spec."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from fortap.service.recovered import DEFAULT_MIN_SCORE

Value = str | float | bool | None

# Excel's own limits: a sheet name is at most 31 characters, a formula at most 8,192
SheetName = Annotated[
    str, Field(min_length=1, max_length=31, description="Sheet name, as in the workbook.")
]
CellText = Annotated[
    str, Field(min_length=1, max_length=12, description="One cell in A1 form, e.g. B7.")
]


class SuggestRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sheet: SheetName
    cell: CellText
    k: int = Field(5, ge=1, le=20, description="How many suggestions, best first.")


class CellWrite(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sheet: SheetName
    cell: CellText
    formula: str = Field(
        min_length=2, max_length=8192, pattern=r"^=", description="Formula text with its '='."
    )
    array: bool | None = Field(
        default=None,
        description="Write it as an array (Ctrl+Shift+Enter) formula; "
        "null: when the workbook holds it as one, as the suggestion said.",
    )


class TableOut(BaseModel):
    range: str
    header_rows: int
    header_cols: int


class SheetOut(BaseModel):
    name: str
    n_rows: int
    n_cols: int
    used_range: str
    tables: list[TableOut]


class WorkbookOut(BaseModel):
    id: str = Field(description="Random id of this upload; every other call names it.")
    name: str = Field(description="The uploaded file's name (display only).")
    size: int
    sheets: list[SheetOut]
    not_kept: list[str] = Field(description="What the .xlsx download will not hold.")
    accepted: list[dict[str, str]] = Field(default_factory=list)


class SuggestionOut(BaseModel):
    rank: int
    formula: str
    value: Value
    error: str | None
    source: str
    reason: str
    score: float
    array: bool = Field(default=False, description="An array (Ctrl+Shift+Enter) formula.")
    note: str | None = Field(
        None,
        description="Why the value shows what it shows: 'not computed: <reason>', inputs "
        "holding errors, values from the file's cache; null when nothing needs saying.",
    )


class SuggestOut(BaseModel):
    book: str = Field(description="The uploaded file's name.")
    sheet: str
    cell: str
    suggestions: list[SuggestionOut]


class CellOut(BaseModel):
    row: int = Field(description="1-based row.")
    col: int = Field(description="1-based column.")
    a1: str
    value: Value
    formula: str | None
    number_format: str
    bold: bool
    accepted: bool


class WindowOut(BaseModel):
    sheet: str
    range: str
    n_rows: int
    n_cols: int
    cells: list[CellOut]
    merged: list[str]


class WrittenOut(BaseModel):
    sheet: str
    cell: str
    formula: str = Field(description="As Excel shows it: an array formula as {=...}.")
    value: Value
    error: str | None


class HealthOut(BaseModel):
    status: str
    workbooks: int
    bytes: int


class Problem(BaseModel):
    detail: str


class TypeColour(BaseModel):
    type: str = Field(description="One of the six cell types.")
    colour: str = Field(description="Its colour, as `fortap cell-types` draws it (#rrggbb).")


class TypedCellOut(BaseModel):
    cell: str = Field(description="A1 of a cell with content.")
    type: str
    probability: float = Field(description="The model's probability of that type.")
    from_: str = Field(alias="from", description="`formula`: typed derived from the cell's own "
                       "formula; `model`: typed by the model.")  # fmt: skip


class CellTypesOut(BaseModel):
    sheet: str
    model: str = Field(description="The model folder that typed the cells.")
    kind: str = Field(description="The model's kind: boosted or encoder.")
    legend: list[TypeColour]
    cells: list[TypedCellOut]


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sheet: SheetName
    question: str = Field(min_length=1, max_length=500, description="The question, in words.")


class AnswerCellOut(BaseModel):
    ref: str = Field(description="A1 of a cell the answer used.")
    value: str = Field(description="Its text.")
    headers: str = Field(description="Its header path, e.g. 'Ontario > 2016'.")


class AnswerOut(BaseModel):
    sheet: str
    table: str = Field(description="The range of the table answered over.")
    question: str
    answer: list[Value] | None = Field(description="The answer's values; null when none ran.")
    operation: str
    formula: str | None = Field(description="An Excel formula computing it, in the sheet's A1.")
    formula_note: str
    cells: list[AnswerCellOut]
    source: str
    model: str | None


class KindColour(BaseModel):
    kind: str = Field(description="missing-formula or inconsistent-formula.")
    colour: str = Field(description="Its colour, as `fortap audit -o` paints it (#rrggbb).")


class FindingOut(BaseModel):
    cell: str = Field(description="A1 of the flagged cell.")
    kind: str
    score: float = Field(description="How sure, 0-1; higher is surer.")
    fix: str | None = Field(description="The formula to write there; null when none is known.")
    evidence: str = Field(description="Why, in one sentence (cut short; --json has it whole).")


class FindingsOut(BaseModel):
    sheet: str
    legend: list[KindColour]
    typed_numbers: int = Field(description="Typed numbers audited (labels apart).")
    labels: int = Field(description="Typed years and codes read as labels, not audited.")
    formulas: int
    planned_checks: int = Field(
        description="Typed numbers the structure did not settle that the budget gives engine checks."
    )
    checked: int = Field(description="Of them, given the suggestion engine's candidates.")
    findings: list[FindingOut] = Field(description="Best score first.")


MinScore = Annotated[
    float,
    Field(
        description="Only formulas scored at least this, 0-1 (fortap recover --min-score); "
        "others are refused with a 422."
    ),
]


class RecoverRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sheet: SheetName
    min_score: MinScore = DEFAULT_MIN_SCORE


class RecoverAccept(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sheet: SheetName
    min_score: MinScore = DEFAULT_MIN_SCORE
    cells: list[CellText] | None = Field(
        default=None,
        max_length=500,
        description="The recovered cells to accept (A1), at most 500; null: all of them.",
    )


class RecoveredOut(BaseModel):
    sheet: str
    cell: str = Field(description="A1 of a typed number the formula gives exactly.")
    formula: str
    value: Value = Field(description="The cell's value, which the formula gives.")
    evidence: str = Field(description="Why, e.g. 'reproduces the values of 5 cells of D2:D7'.")
    score: float = Field(description="How sure, 0-1; higher is surer.")
    family: str = Field(description="The kind of formula (pair, run, lone, ...).")


class RecoverOut(BaseModel):
    sheet: str
    min_score: float
    typed_numbers: int = Field(description="Typed numbers on the sheet (what was searched).")
    recovered: list[RecoveredOut] = Field(
        description="As fortap recover --json lists them, in reading order; cells accepted "
        "since are left out."
    )


class RecoverAcceptOut(BaseModel):
    sheet: str
    min_score: float
    written: list[WrittenOut] = Field(description="The formulas accepted, in reading order.")
    left: int = Field(description="Chosen formulas not written by this request (over 500).")
