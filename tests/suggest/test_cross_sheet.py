"""Which golds read another sheet, and the bench's same-sheet / cross-sheet report."""

from __future__ import annotations

import json

import pytest

from fortap.suggest.evaluate import reads_other_sheet
from fortap.suggest.reach import reach_rows


@pytest.mark.parametrize(
    ("formula", "other"),
    [("=SUM(A1:A3)", False), ("=Data!B2*2", True), ("='Q 1'!B2", True),
     ('="Total!"&A1', False), ('=IF(A1="a!""b",Sheet2!C3,0)', True), ("=[1]Rates!C3", True)],
)  # fmt: skip
def test_reads_other_sheet(formula, other):
    assert reads_other_sheet(formula) is other


def test_reach_rows_split_and_explain_misses(tmp_path):
    recs = [
        {"setting": "sheet", "book": "a", "cross_sheet": True, "rank": 0, "printed_rank": 0,
         "top1_source": "copy"},
        {"setting": "sheet", "book": "a", "cross_sheet": True, "rank": 2, "printed_rank": 2,
         "top1_source": "echo"},
        {"setting": "sheet", "book": "b", "cross_sheet": True, "rank": None,
         "printed_rank": None, "top1_source": "copy"},
        {"setting": "sheet", "book": "b", "cross_sheet": False, "rank": 0, "printed_rank": 1,
         "top1_source": "copy"},
    ]  # fmt: skip
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    cross, same = reach_rows(path)
    assert (cross["part"], cross["targets"], cross["books"]) == ("cross-sheet", 3, 2)
    assert (cross["top1"], cross["recall"], cross["missed"], cross["outranked"]) == (
        0.3333,
        0.6667,
        0.3333,
        0.3333,
    )
    assert cross["beaten_by"] == {"echo": 1}
    assert (same["top1"], same["printed_top1"]) == (1.0, 0.0)
