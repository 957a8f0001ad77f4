"""Per-workbook caps of the formula-prediction sides: at most N examples of one workbook,
spread evenly within it, deterministic; then the total caps."""

from __future__ import annotations

import dataclasses

from fortap.table.io import write_jsonl
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.examples import formula_examples
from fortap.tasks.formula_prediction.run import load_split
from fortap.tasks.formula_prediction.split import spread_per_book
from fortap.tasks.run_config import load_run_config

from .expense_table import expense_table

BOOKS = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx")


def cells(examples):
    return [(ex.meta["book"], tuple(ex.meta["target"])) for ex in examples]


def test_a_cap_spreads_the_kept_examples_within_each_workbook(tokenizer):
    # the expense table's five formulas, row-major: D2, D3, B4, C4, D4
    a = formula_examples(dataclasses.replace(expense_table(), book="x/budget.xlsx"), tokenizer)
    b = formula_examples(dataclasses.replace(expense_table(), book="y/costs.xls"), tokenizer)
    assert len(a) == len(b) == 5
    kept = spread_per_book(a + b[:2], 2)
    assert cells(kept) == [("x/budget.xlsx", (1, 3)), ("x/budget.xlsx", (3, 1)),  # 0, 2 of 5
                           ("y/costs.xls", (1, 3)), ("y/costs.xls", (2, 3))]  # fmt: skip
    assert cells(spread_per_book(a + b, 3)) == cells(spread_per_book(a + b, 3))
    assert spread_per_book(a, 0) == a and spread_per_book(a, 9) == a
    # copies of one workbook (.xls and .xlsx) share a cap: the key decides, not the path
    twin = formula_examples(dataclasses.replace(expense_table(), book="z/budget.xls"), tokenizer)
    assert len(spread_per_book(a + twin, 4)) == 4


def test_the_run_config_caps_dev_and_test_per_workbook(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, [dataclasses.replace(expense_table(), book=name) for name in BOOKS])
    sets = ["evaluation.test_per_book=2", "evaluation.dev_per_book=3"]
    loaded = load_split([tables], load_run_config(FormulaRunConfig, None, sets))
    split = loaded.split  # name order: a, b train; c dev; d test; five formulas each
    assert cells(split["test"]) == [("d.xlsx", (1, 3)), ("d.xlsx", (3, 1))]
    assert cells(split["dev"]) == [("c.xlsx", (1, 3)), ("c.xlsx", (2, 3)), ("c.xlsx", (3, 2))]
    assert len(split["train"]) == 10
    assert "dev checks draw from 3 of the 5 examples, at most 3 per workbook" in loaded.note
    assert "evaluated on 2 of the 5 examples, at most 2 per workbook" in loaded.note
    both = load_split([tables], load_run_config(FormulaRunConfig, None, [
        "evaluation.test_per_book=4", "evaluation.max_test=3", "data.train_per_book=1"]))  # fmt: skip
    # the total cap spreads over what the workbook cap kept: D2, D3, B4, C4 -> D2, D3, B4
    # (spread over all five it would have been D2, D3, C4)
    assert cells(both.split["test"]) == [("d.xlsx", (1, 3)), ("d.xlsx", (2, 3)), ("d.xlsx", (3, 1))]
    assert cells(both.split["train"]) == [("a.xlsx", (1, 3)), ("b.xlsx", (1, 3))]


def test_the_low_resource_setting_trains_on_a_fifth_of_the_capped_side(tmp_path):
    tables = tmp_path / "tables.jsonl"
    write_jsonl(tables, [dataclasses.replace(expense_table(), book=name) for name in BOOKS])
    full = load_split([tables], load_run_config(FormulaRunConfig, None, []))
    sets = ["data.train=low_resource"]
    low = load_split([tables], load_run_config(FormulaRunConfig, None, sets))
    assert len(full.split["train"]) == 10 and len(low.split["train"]) == 2
    assert set(cells(low.split["train"])) <= set(cells(full.split["train"]))
    assert cells(low.split["test"]) == cells(full.split["test"])
    assert "low_resource: trained on 2 of the 10 examples" in low.note
    again = load_split([tables], load_run_config(FormulaRunConfig, None, sets))
    assert cells(again.split["train"]) == cells(low.split["train"])
