"""Lexical match features of each shown cell with the question (`cell_features`).

The cell head reads them beside the encoder's cell state, as HiTab's own parser reads its
entity-linking features: a data cell is the answer mostly because its row's and its column's
headers name what the question names, which a fine-tuned encoder learns only slowly from a few
thousand questions. Per cell (`FEATURES`), each in [0, 1]:

- `row_words`, `col_words`: question words shared with the left path of the cell's row and the
  top path of its column (`headers.overlaps`), over 4, capped at 1;
- `best_row`, `best_col`: the row (column) shares the most words of any (and at least one);
- `own_words`: share of the cell's own words found in the question (header and text answers);
- `header`: the cell is a header cell;
- `number_in_question`: the cell's number is written in the question.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from fortap.encoding.piece import RC
from fortap.tasks.table_qa.headers import HeaderPaths, overlaps, words
from fortap.tasks.table_qa.matching import to_value

FEATURES = ("row_words", "col_words", "best_row", "best_col", "own_words", "header",
            "number_in_question")  # fmt: skip
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def question_numbers(question: str) -> set[float]:
    return {float(n.replace(",", "")) for n in _NUMBER.findall(question) if n.replace(",", "")}


def cell_features(paths: HeaderPaths, question: str, cells: Sequence[RC]) -> list[list[float]]:
    """One row of `FEATURES` per cell."""
    rows, cols = overlaps(paths, question)
    top_row, top_col = max(rows.values(), default=0), max(cols.values(), default=0)
    q_words, q_numbers = words(question), question_numbers(question)
    found = []
    for r, c in cells:
        row, col = rows.get(r, 0), cols.get(c, 0)
        own = words(paths.table.cell(r, c).text)
        value = to_value(paths.table.cell(r, c).text) if paths.table.cell(r, c).text else ""
        found.append([
            min(row, 4) / 4, min(col, 4) / 4,
            float(row > 0 and row == top_row), float(col > 0 and col == top_col),
            len(own & q_words) / len(own) if own else 0.0,
            float(paths.is_header((r, c))),
            float(isinstance(value, float) and value in q_numbers),
        ])  # fmt: skip
    return found
