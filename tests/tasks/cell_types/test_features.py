"""Cell features from a sheet: literal texts and a literal sheet with exact values, the SAUS
source view, merged regions, errors that name the cell, the boosted model's stored names,
and the time of a 5,000-cell sheet."""

from __future__ import annotations

import time

import numpy as np
import pytest

from fortap.errors import FortapError
from fortap.sheet.model import Cell, CellStyle, Region, Sheet
from fortap.tasks.cell_types.boosted import fit, predict
from fortap.tasks.cell_types.features import FEATURE_NAMES, sheet_features
from fortap.tasks.cell_types.labels import CLASS_INDEX, NO_LABEL
from fortap.tasks.cell_types.saus import SausSheet
from fortap.tasks.cell_types.saus_source import source_sheet
from fortap.tasks.cell_types.sums import sum_cues
from fortap.tasks.cell_types.text_cues import TEXT_FEATURES, count_words, text_cues

BOLD = CellStyle(bold=True)
CELLS = {  # a title, a header row of years, a total over two indented parts, a source note
    (0, 0): Cell("Table 1. Sales", "text", style=BOLD),
    (2, 0): Cell("Item", "text"), (2, 1): Cell(2001.0, "number"), (2, 2): Cell("2002", "text"),
    (3, 0): Cell("Total", "text"), (3, 1): Cell(30.0, "number"), (3, 2): Cell(7.0, "number"),
    (4, 0): Cell("  a", "text"), (4, 1): Cell(10.0, "number"), (4, 2): Cell(3.0, "number"),
    (5, 0): Cell("  b", "text"), (5, 1): Cell(20.0, "number"), (5, 2): Cell(4.0, "number"),
    (7, 0): Cell("Source: U.S. Census Bureau,", "text"),
}  # fmt: skip
SHEET = Sheet("S", "book.xlsx", 8, 3, CELLS)


def value(features, rc, name):
    return float(features.values[features.cells.index(rc), FEATURE_NAMES.index(name)])


def test_words_are_counted_as_saus_counts_them():
    assert count_words("Source: U.S. Census Bureau,") == 6  # Source : U.S. Census Bureau ,
    assert count_words("Table 613. Unemployment by Sex") == 6  # the sentence's period
    assert count_words("$100,000 to $124,999") == 5  # $ 100,000 to $ 124,999
    assert count_words("Defense R&D (Poor's)") == 8  # Defense R & D ( Poor 's )
    assert count_words("Z Less than .05 percent.") == 6
    assert count_words("") == 0


def test_text_cues_keep_saus_rules_for_the_empty_text():
    cues = dict(zip(TEXT_FEATURES, text_cues(""), strict=True))
    assert cues["first_char_num"] == cues["all_upper"] == cues["is_alpha"] == 1.0
    assert cues["length"] == cues["first_char_special"] == cues["capitalized"] == 0.0
    cues = dict(zip(TEXT_FEATURES, text_cues("  World, total \\1"), strict=True))
    assert (cues["leading_spaces"], cues["words_like_total"], cues["aggregate_word"]) == (2, 1, 1)
    assert cues["footnote_mark"] == cues["punctuations"] == 1.0 and cues["is_alpha"] == 0.0


def test_features_of_a_literal_sheet():
    f = sheet_features(SHEET)
    assert f.cells == tuple(sorted(CELLS)) and f.values.shape == (len(CELLS), len(FEATURE_NAMES))
    assert value(f, (0, 0), "num_of_neighbors=0") == 1 and value(f, (0, 0), "is_bold") == 1
    assert value(f, (0, 0), "rows_above_numbers") == 2  # the numbers start on row 2
    assert value(f, (7, 0), "rows_below_numbers") == 2 and value(f, (7, 0), "starts_source") == 1
    # a year stored as text is SAUS's year; a year stored as a number is fortap's own cue
    assert value(f, (2, 2), "in_year_range") == 1 and value(f, (2, 1), "in_year_range") == 0
    assert value(f, (2, 1), "number_in_year_range") == 1 and value(f, (2, 1), "cell_type=2") == 1
    assert value(f, (2, 1), "length") == 4  # a number's text as fortap shows it: "2001"
    # the total: its label says so, its parts follow one level deeper, and it is their sum
    assert value(f, (3, 1), "label_total") == 1 and value(f, (3, 1), "label_next_deeper") == 2
    assert value(f, (3, 1), "total_of_below") == 1 and value(f, (4, 1), "total_of_below") == 0
    assert value(f, (3, 1), "num_of_neighbors=4") == 1
    assert [value(f, (3, 1), f"{d}_kind") for d in ("up", "down", "left", "right")] == [2, 2, 1, 2]
    assert value(f, (4, 0), "up_gap") == 1 and value(f, (2, 0), "up_gap") == 2
    assert value(f, (2, 0), "left_gap") == 64  # nothing to its left
    assert value(f, (4, 2), "heading_gap") == 2  # "2002" two rows above


def test_an_empty_cell_asked_for_and_a_merged_region():
    sheet = Sheet("S", "book.xlsx", 8, 3, CELLS, merged=(Region(0, 0, 0, 2),))
    f = sheet_features(sheet, [(0, 1), (6, 1)])
    assert value(f, (0, 1), "num_of_cells") == 3 and value(f, (0, 1), "merge_cols") == 3
    assert value(f, (6, 1), "cell_type=0") == 1 and value(f, (6, 1), "num_of_neighbors=1") == 1


def test_a_cell_outside_the_sheet_names_book_sheet_and_cell():
    with pytest.raises(FortapError, match=r"book.xlsx: sheet 'S': cell D9 \(8, 3\) lies outside"):
        sheet_features(SHEET, [(8, 3)])
    bad = Sheet("S", "book.xlsx", 1, 1, {(0, 0): Cell("x", "number")})
    with pytest.raises(FortapError, match="book.xlsx: sheet 'S': cell A1: a number cell holds"):
        sheet_features(bad)


def test_select_asks_by_name_and_refuses_unknown_names():
    f = sheet_features(SHEET, [(3, 1)])
    assert f.select(["is_bold", "length"]).tolist() == [[0.0, 2.0]]
    with pytest.raises(FortapError, match=r"unknown cell features \['font_height'\]"):
        f.select(["length", "font_height"])


def test_sum_cues_read_totals_above_and_below_their_parts():
    lines, order = np.array([0, 0, 0, 0, 0, 0, 1, 1]), np.array([0, 1, 2, 3, 4, 5, 0, 1])
    after, before = sum_cues(lines, order, np.array([30.0, 10, 20, 4, 9, 13, 22, 1]))
    assert after.tolist() == [True] + [False] * 7  # 30 = 10 + 20
    assert before.tolist() == [False] * 5 + [True, False, False]  # 13 = 4 + 9; 22 is on line 1


def test_the_source_view_keeps_kinds_as_the_file_stored_them():
    names = ("cell_type=0", "cell_type=2", "leading_spaces", "is_bold", "indentation",
             "h_alignment=0", "h_alignment=2", "border_top_type=1")  # fmt: skip
    f = {"text": (0, 0, 0, 0, 0, 1, 0, 0), "number": (0, 1, 0, 0, 0, 1, 0, 0),
         "spaces": (0, 0, 4, 0, 0, 1, 0, 0), "bold": (0, 0, 0, 1, 0, 1, 0, 0)}  # fmt: skip
    texts = (("1990", "1990.0", "", "None"),)
    features = ((f["text"], f["number"], f["spaces"], f["bold"]),)
    d = CLASS_INDEX["data"]
    s = SausSheet("10s0001.xls", Sheet("Data", "10s0001.xls", 1, 4), ((d, d, NO_LABEL, d),),
                  features, names, texts)  # fmt: skip
    sheet = source_sheet(s)
    assert sheet.cell(0, 0) == Cell("1990", "text", style=CellStyle(h_align=None))
    assert sheet.cell(0, 1).kind == "number" and sheet.cell(0, 1).value == 1990.0
    assert sheet.cell(0, 2).value == "    "  # a text of spaces alone, which SAUS strips
    assert sheet.cell(0, 3).kind == "empty" and sheet.cell(0, 3).style.bold  # a bold blank


def test_a_booster_stores_its_feature_names_and_reads_cells_by_them():
    f = sheet_features(SHEET)
    gold = np.asarray([CLASS_INDEX["top_attribute"] if r == 2 else CLASS_INDEX["data"]
                       for r, _ in f.cells])  # fmt: skip
    tiny = {"num_leaves": 4, "min_data_in_leaf": 1, "min_data_in_bin": 1, "bagging_fraction": 1.0,
            "feature_fraction": 1.0}  # fmt: skip
    booster = fit(f.values, gold, tiny, rounds=30)
    assert booster.feature_name() == list(FEATURE_NAMES)
    assert predict(booster, f).tolist() == gold.tolist()


def test_five_thousand_cells_take_well_under_a_second():
    rng = np.random.default_rng(0)
    cells = {(r, c): Cell(f"label {r}", "text") if c == 0 else Cell(float(rng.integers(5000)), "number")
             for r in range(250) for c in range(20)}  # fmt: skip
    sheet = Sheet("Big", "big.xlsx", 250, 20, cells)
    text_cues.cache_clear()
    started = time.perf_counter()
    f = sheet_features(sheet)
    assert f.values.shape == (5000, len(FEATURE_NAMES))
    assert time.perf_counter() - started < 1.0
