"""The formula-labelled set (`formula_set`): labels from formulas, headers and context; values only."""

from __future__ import annotations

import gzip
import json

from fortap.sheet.model import Cell, Region, Sheet
from fortap.table.detect import build_table
from fortap.table.io import write_jsonl
from fortap.tasks.cell_types.formula_set import build_formula_set, label_table, split_of
from fortap.tasks.cell_types.labels import CLASS_INDEX
from fortap.tasks.cell_types.saus import read_saus
from fortap.tasks.cell_types.saus_source import source_sheet


def budget() -> Sheet:
    """Sheet rows 2..7 (0-based), cols 1..4: a header row, four items, a total row of SUMs;
    col 4 holds a share, a copy and a cross-sheet read."""
    text = {(2, 1): "Item", (2, 2): "2019", (2, 3): "2020", (2, 4): "Share"}
    cells = {rc: Cell(v, "text") for rc, v in text.items()}
    for i, name in enumerate(["Rent", "Food", "Fuel", "Books"]):
        r = 3 + i
        cells[(r, 1)] = Cell(name, "text")
        cells[(r, 2)] = Cell(float(10 + i), "number")
        cells[(r, 3)] = Cell(float(20 + i), "number")
    cells[(3, 4)] = Cell(0.5, "number", formula="=C4/D4")  # a share of its row
    cells[(4, 4)] = Cell(11.0, "number", formula="=C5")  # a copy
    cells[(5, 4)] = Cell(3.0, "number", formula="=Other!B2+Other!B3")  # another sheet
    cells[(7, 1)] = Cell("Total", "text")
    cells[(7, 2)] = Cell(46.0, "number", formula="=SUM(C4:C7)")
    cells[(7, 3)] = Cell(86.0, "number", formula="=SUM(D4:D7)")
    return Sheet("Budget", "book.xlsx", 9, 5, cells)


def the_table():
    return build_table(budget(), Region(2, 1, 7, 4), ("Household budget", "Source: me"))


def test_labels_follow_the_rules():
    t = the_table()
    assert (t.top_header_rows, t.left_header_cols) == (1, 1)
    line = label_table(t)
    a, texts = line["annotations"], line["table_array"]
    assert (texts[0][0], a[0][0]) == ("Household budget", "metadata")  # title row, then a blank
    assert a[line["num_rows"] - 1][0] == "notes"
    head = 2
    assert [a[head][c] for c in range(4)] == ["header"] * 4
    assert [a[head + r][0] for r in range(1, 5)] == ["attributes"] * 4
    assert a[head + 1][1] == "data" and a[head + 4][2] == "data"
    assert a[head + 5][1] == a[head + 5][2] == "derived"  # the SUM row
    assert texts[head + 5][1] == "46"  # the cached value, no formula
    assert a[head + 1][3] == "derived"  # the share
    assert a[head + 2][3] is None and a[head + 3][3] is None  # a copy, another sheet's cells


def test_a_sum_over_cells_outside_its_table_is_not_derived():
    sheet = budget()
    cells = dict(sheet.cells)
    cells[(7, 2)] = Cell(46.0, "number", formula="=SUM(H4:H7)")  # beside the table, not in it
    sheet = Sheet(sheet.name, sheet.book, sheet.n_rows, 9, cells)
    line = label_table(build_table(sheet, Region(2, 1, 7, 4)))
    assert line["annotations"][5][1] is None


def test_the_built_set_reads_as_saus_values_only(tmp_path):
    ingest = tmp_path / "toy_source"
    ingest.mkdir()
    write_jsonl(ingest / "tables.jsonl", [the_table()])
    stats = build_formula_set([ingest], tmp_path / "set")
    split = split_of("book.xlsx", "toy_source")
    (s,) = read_saus(tmp_path / "set" / split)
    assert s.labels[7][1] == CLASS_INDEX["derived"] and s.labels[3][1] == CLASS_INDEX["data"]
    view = source_sheet(s)
    assert view.cell(7, 1).kind == "number" and view.cell(7, 1).value == 46.0
    assert view.cell(2, 1).kind == "text"  # the header "2019" stays the text it was
    assert all(c.formula is None for c in view.cells.values())
    src = stats["sources"]["toy_source"]
    assert src["share"] == 1.0 and src["classes"]["derived"] == 3
    again = build_formula_set([ingest], tmp_path / "set")  # a rerun resumes from parts/
    assert again == stats
    with gzip.open(tmp_path / "set" / split / "saus.jl.gz", "rt") as fh:
        assert json.loads(fh.readline())["source"] == "toy_source"
