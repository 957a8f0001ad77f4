"""A literal HiTab-style table and questions for the table-QA tests.

    A          B       C
1              2015    2016      top header row (HiTab counts 2 header rows: one too many)
2   canada     100     120       left tree: canada > ontario, quebec
3   ontario    40      50
4   quebec     30      45
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from fortap.table.hitab import table_from_hitab

RAW = {
    "title": "population by province and year",
    "texts": [["", "2015", "2016"], ["canada", "100", "120"], ["ontario", "40", "50"],
              ["quebec", "30", "45"]],
    "merged_regions": [],
    "top_header_rows_num": 2,
    "left_header_columns_num": 1,
    "top_root": {"row_index": -1, "column_index": -1, "children": [
        {"row_index": 0, "column_index": 1, "children": []},
        {"row_index": 0, "column_index": 2, "children": []}]},
    "left_root": {"row_index": -1, "column_index": -1, "children": [
        {"row_index": 1, "column_index": 0, "children": [
            {"row_index": 2, "column_index": 0, "children": []},
            {"row_index": 3, "column_index": 0, "children": []}]}]},
}  # fmt: skip


def tiny_table():
    return table_from_hitab(RAW, "tiny.json")


def question(qid, text, answer, aggregation, answer_cells, headers=(), table_id="tiny"):
    """One dev/test-shaped question record."""
    top = {f"h{i}": {f"({r}, {c})": "x"} for i, (r, c) in enumerate(headers) if r == 0}
    left = {f"l{i}": {f"({r}, {c})": "x"} for i, (r, c) in enumerate(headers) if r > 0}
    answers = {f"({r}, {c})": 0 for r, c in answer_cells}
    header_answer = all(c == 0 or r == 0 for r, c in answer_cells)
    entity = {"top": top, "left": left, "top_left_corner": {}}
    quantity = {}
    if header_answer:
        entity["left" if answer_cells[0][1] == 0 else "top"]["[ANSWER]"] = answers
    else:
        quantity["[ANSWER]"] = answers
    return {"id": qid, "table_id": table_id, "question": text, "answer": answer,
            "aggregation": aggregation,
            "linked_cells": {"entity_link": entity, "quantity_link": quantity}}  # fmt: skip


QUESTIONS = [
    question("q1", "how many people lived in ontario in 2016?", [50.0], ["none"], [(2, 2)], [(0, 2), (2, 0)]),
    question("q2", "how many in quebec in 2015?", [30.0], ["none"], [(3, 1)], [(0, 1), (3, 0)]),
    question("q3", "which province had more people in 2015?", ["ontario"], ["argmax"], [(2, 0)], [(0, 1)]),
    question("q4", "how many in ontario and quebec together in 2016?", [95.0], ["sum"], [(2, 2), (3, 2)]),
    question("q5", "what share of canada lived in ontario in 2016?", [0.416667], ["div"], [(2, 2), (1, 2)]),
    question("q6", "how many in canada in 2015?", [100.0], ["none"], [(1, 1)], [(0, 1), (1, 0)]),
]  # fmt: skip


def write_hitab(root: Path, copies: int = 1) -> Path:
    """A HiTab folder in `root`: the tiny table, its questions in every split file."""
    (root / "tables" / "raw").mkdir(parents=True)
    (root / "processed_input").mkdir()
    (root / "tables" / "raw" / "tiny.json").write_text(json.dumps(RAW))
    lines = "".join(json.dumps(q) + "\n" for q in QUESTIONS)
    for name in ("dev_samples.jsonl", "test_samples.jsonl", "test_samples_qualitycheck.jsonl"):
        (root / name).write_text(lines)
    train = [
        {**q, "context": q["table_id"], "id": f"{q['id']}-{k}"}
        for k in range(copies)
        for q in QUESTIONS
    ]
    for q in train:
        del q["table_id"]
    with gzip.open(
        root / "processed_input" / "train_samples_processed.from_90_shards.jsonl.gz", "wt"
    ) as fh:
        fh.writelines(json.dumps(q) + "\n" for q in train)
    return root
