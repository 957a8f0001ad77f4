"""Within `fortap finetune` and `fortap evaluate`, each formula cell's text is parsed once:
example building and the rule baseline share one `Formula` per cell, and the rules build their
suggestions from ASTs instead of re-parsing text."""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter

import pytest
from typer.testing import CliRunner

import fortap.formula.formula as formula_module
from fortap.cli import app
from fortap.table.io import write_jsonl

from .expense_table import expense_table

BOOKS = ("a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx")


@pytest.fixture
def parses(monkeypatch) -> Counter:
    """Counts `parse_formula(text, sheet, cell)` calls, wherever a module bound the function
    (modules imported later get the counting one through `fortap.formula`)."""
    import fortap.formula
    import fortap.tasks.formula_prediction.run  # noqa: F401  (imports every module it uses)

    calls: Counter = Counter()
    original = formula_module.parse_formula

    def counting(text, host_sheet=None, cell=None, *args, **kwargs):
        calls[text, host_sheet, cell] += 1
        return original(text, host_sheet, cell, *args, **kwargs)

    for name, module in list(sys.modules.items()):
        if name.startswith("fortap") and getattr(module, "parse_formula", None) is original:
            monkeypatch.setattr(module, "parse_formula", counting)
    assert fortap.formula.parse_formula is counting
    return calls


def formula_cells(tables) -> set:
    return {
        (cell.formula, t.sheet, (t.region.top + r, t.region.left + c))
        for t in tables
        for r, row in enumerate(t.cells)
        for c, cell in enumerate(row)
        if cell.formula
    }


def test_finetune_and_evaluate_parse_each_formula_cell_once(tmp_path, parses):
    tables = [dataclasses.replace(expense_table(), book=name) for name in BOOKS]
    path = tmp_path / "tables.jsonl"
    write_jsonl(path, tables)
    runner = CliRunner()
    out = tmp_path / "ft"
    done = runner.invoke(
        app, ["finetune", "formula-prediction", str(path), "-o", str(out), "--steps", "2",
              "--no-progress"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    # the four books share sheet and addresses, so each (text, sheet, cell) stands for 4 cells
    cells = formula_cells(tables)
    assert set(parses) == cells and len(cells) == 5
    assert set(parses.values()) == {len(BOOKS)}  # once per formula cell, rules included
    parses.clear()
    again = runner.invoke(
        app, ["evaluate", "formula-prediction", str(path), "--model", str(out / "model"),
              "-o", str(tmp_path / "ev")],
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert set(parses) == cells and set(parses.values()) == {len(BOOKS)}
