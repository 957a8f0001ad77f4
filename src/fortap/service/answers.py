"""The page's ask box: a question answered over the open sheet by the shipped table-QA model.

The sheet's table is the one `fortap ask BOOK` answers over (`table_qa.ask.read_table`): the
largest of `table.detect_tables`, here taken from the session's sheet as the engine holds it now
rather than read again from the file. The model (`TableAnswerer`, `models/table-qa` unless the
config names another folder) is loaded on the first question and kept for the process
(`shipped_models.load_once`); questions then take a fraction of a second each. The answer is
`ask.as_json`'s record (values, operation, the Excel formula in the sheet's A1 references, each
cell with its header path), plus the sheet and the table's range; the page puts the formula
into a cell through `POST /workbooks/{id}/cells`, as it accepts a suggestion.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fortap.service.grid import json_value
from fortap.service.shipped_models import check_installed
from fortap.table.model import Table
from fortap.tasks.table_qa.ask import SHIPPED, as_json, ask

_answering = threading.Lock()  # one forward pass at a time: two cores gain nothing from two


def answer_record(table: Table, question: str, folder: Path | None) -> dict[str, Any]:
    """The model's answer to `question` over `table` as one record; `folder` None = the shipped
    model. Refused as `ask.ask` refuses: an empty question, or cells that hold nothing."""
    check_installed(folder or SHIPPED, "the ask box")
    with _answering:  # the model is loaded on the first question (`ask.answerer`)
        found = ask(table, question, folder or SHIPPED)
    record = as_json(found)
    if record["answer"] is not None:
        record["answer"] = [json_value(v) for v in record["answer"]]
    return {"sheet": table.sheet, "table": table.region.a1, "question": question} | record
