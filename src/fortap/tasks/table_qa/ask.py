"""`fortap ask TABLE "question"`: answer one question over one table, showing how.

TABLE is a HiTab table JSON (`table.hitab.read_hitab`) or a workbook: its sheet (`sheet`, else
the first) is read with `sheet.read_workbook` and its largest table found by
`table.detect_tables`. A fine-tuned model folder (`fortap finetune table-qa ... -o OUT`, then
`OUT/model`; by default the shipped `models/table-qa`, `SHIPPED`) chooses the operation and the
cells, and the answer names it; with `rule=True` (`--rule`), or when no model is installed, the
header-overlap rule answers, and says so. The answer comes with the operation, a formula a person can check
(`= B7 / B3 (Ontario 2016 ÷ Canada 2016)`), the Excel formula that computes it in the sheet
(`=B7/B3`, `answer_formula`; for a HiTab JSON in the table's own grid, and it says so) and each
cell with its header path; `as_json` gives the same as one record (`fortap ask --json`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from fortap.errors import FortapError, SheetError
from fortap.sheet.model import Sheet
from fortap.sheet.read import read_workbook
from fortap.table.detect import detect_tables
from fortap.table.hitab import read_hitab
from fortap.table.model import Table
from fortap.tasks.model_folder import data_name, loaded_once, shipped, where_shipped
from fortap.tasks.table_qa.answer_formula import answer_formula, grid_note
from fortap.tasks.table_qa.baselines import crossing
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.operations import Execution, execute

SHIPPED = shipped("table-qa")  # what `fortap ask` uses by default


@dataclass(frozen=True)
class Answer:
    op: str
    run: Execution | None
    cells: tuple[tuple[str, str, str], ...]  # (A1, value, header path) per cell used
    source: str  # "model" or the rule's name
    formula: str = ""  # the Excel formula computing the answer ("" when none ran)
    note: str = ""  # how to read its references (`answer_formula.grid_note`)
    model: str = ""  # the model folder that answered, as the card names it ("" for the rule)
    confidence: float | None = None  # calibrated on dev (`rerank`); None without a reranker
    uncertain: bool = False  # confidence below the folder's threshold
    next_best: Answer | None = None  # shown beside an uncertain answer


def read_table(path: str | Path, sheet: str | None = None) -> Table:
    """The table TABLE names (see module doc); errors name the file and sheet."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        return read_hitab(path)
    book = read_workbook(path)
    sheets = [s for s in book.sheets if sheet is None or s.name == sheet]
    if not sheets:
        names = ", ".join(s.name for s in book.sheets)
        raise SheetError("no_sheet", f"no sheet {sheet!r} (sheets: {names})", path)
    return largest_table(sheets[0], path)


def largest_table(sheet: Sheet, path: str | Path | None = None) -> Table:
    """The largest table `table.detect_tables` finds on `sheet` (the one questions are asked
    over); a `SheetError` naming the file and sheet when there is none."""
    tables = detect_tables(sheet)
    if not tables:
        raise SheetError("no_table", "no table found", path or sheet.book, sheet.name)
    return max(tables, key=lambda t: t.n_rows * t.n_cols)


def ask(
    table: Table, question: str, model_dir: str | Path | None = None, rule: bool = False
) -> Answer:
    """The answer to `question` by `model_dir` (default: the shipped model, if installed) or by
    the header-overlap rule (`rule`); refused (a `FortapError`) when the question is empty or
    the cells it leads to hold nothing, rather than answering a header or a blank."""
    if not question.strip():
        raise FortapError('the question is empty: type one, e.g. "total of 2019"')
    paths = HeaderPaths(table)
    if model_dir is None and not rule and SHIPPED.is_dir():
        model_dir = SHIPPED
    if rule or model_dir is None:
        rc = crossing(paths, question)
        if rc is None:
            raise FortapError(f"the table of {table.book} has no data cells to answer from")
        source = "header-overlap rule"
        if not rule:  # asked for the model, but none is installed: say where it would be
            source += f" ({where_shipped(SHIPPED)})"
        found = _answer("none", [rc], execute("none", [rc], paths), paths, source)
    else:
        found = _model_answer(answerer(model_dir), table, question, paths, model_dir)
    if not any(text.strip() for _, text, _ in found.cells):
        where = ", ".join(ref for ref, _, _ in found.cells) or "none"
        raise FortapError(f"no answer in {Path(table.book).name}: the cells the question leads "
                          f"to ({where}) are empty")  # fmt: skip
    return found


def _model_answer(model, table: Table, question: str, paths: HeaderPaths, model_dir) -> Answer:
    """The model's best answer, with its confidence and, when uncertain, the next best."""
    name = f"{data_name(SHIPPED)} (shipped)" if Path(model_dir) == SHIPPED else str(model_dir)
    ranked = model.ranked(table, question, paths)
    (run, confidence), rest = ranked[0], ranked[1:]
    found = _answer(run.op, list(run.cells), run.run, paths, "model", name)
    if confidence is None:
        return found
    uncertain = confidence < model.reranker.threshold
    second = None
    if uncertain and rest:
        other, other_conf = rest[0]
        second = replace(_answer(other.op, list(other.cells), other.run, paths, "model", name),
                         confidence=other_conf)  # fmt: skip
    return replace(found, confidence=confidence, uncertain=uncertain, next_best=second)


def answerer(folder: str | Path):
    """The `TableAnswerer` of `folder`, loaded once a process (`model_folder.loaded_once`)."""
    from fortap.tasks.table_qa.answerer import TableAnswerer

    return loaded_once(folder, TableAnswerer.load)


def _answer(op, cells, run, paths: HeaderPaths, source: str, model: str = "") -> Answer:
    shown = tuple((paths.a1(rc), paths.table.cell(*rc).text,
                   " > ".join(paths.table.cell(*h).text for h in paths.header_path(rc)))
                  for rc in cells)  # fmt: skip
    formula = answer_formula(op, run, paths) if run is not None else ""
    return Answer(op, run, shown, source, formula, grid_note(paths.table), model)


def render(answer: Answer) -> list[str]:
    """The lines `fortap ask` prints."""
    if answer.run is None:
        lines = [f"no answer: the {answer.op} operation could not run on the chosen cells"]
    else:
        values = ", ".join(_show(v) for v in answer.run.answer)
        lines = [f"answer: {values}", f"operation: {answer.op}", answer.run.show()]
        lines.append(f"formula: {answer.formula}" + (f"   ({answer.note})" if answer.note else ""))
    lines += [f"  {ref} = {value}   [{path}]" for ref, value, path in answer.cells]
    if answer.confidence is not None:
        lines.append(f"confidence: {answer.confidence:.2f}"
                     + ("  (uncertain: below the model's threshold)" if answer.uncertain else ""))  # fmt: skip
    if answer.next_best is not None and answer.next_best.run is not None:
        other = answer.next_best
        lines.append(f"next best ({other.confidence:.2f}): "
                     f"{', '.join(_show(v) for v in other.run.answer)}  {other.op}  {other.formula}")  # fmt: skip
    if answer.source != "model":
        lines.append(f"(no trained model used: answered by the {answer.source})")
    else:
        lines.append(f"(answered by the model {answer.model})")
    return lines


def as_json(answer: Answer) -> dict:
    """The answer as one record: answer values, operation, Excel formula, cells, who answered."""
    return {
        "answer": list(answer.run.answer) if answer.run is not None else None,
        "operation": answer.op, "formula": answer.formula or None, "formula_note": answer.note,
        "cells": [{"ref": ref, "value": value, "headers": path}
                  for ref, value, path in answer.cells],
        "source": answer.source, "model": answer.model or None,
        "confidence": answer.confidence, "uncertain": answer.uncertain,
        "next_best": as_json(answer.next_best) if answer.next_best is not None else None,
    }  # fmt: skip


def _show(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
