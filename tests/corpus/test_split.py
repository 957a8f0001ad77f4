"""Workbook keys, the canonical copy of a duplicated workbook, and the split by key."""

from __future__ import annotations

from collections import Counter

import pytest

from fortap.corpus.split import SplitConfig, book_key, canonical_books, split_of


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("data/euses_excelint/subjects_xlsx/act3_lab23_posey.xlsx", "act3lab23posey"),
        (
            "data/tasi/Spreadsheet Error Dataset/Subject/cs101/act3_lab23_posey.xls",
            "act3lab23posey",
        ),
        ("data/checkcell_benchmarks/files/TRAIL%20INVENTORY%20N#A850A.xls", "trailinventoryna850a"),
        ("data/tasi/Table Structure Dataset/Subject/23.xlsx", "subject/23"),
        ("data/poi_testdata/files/p36.xls", "files/p36"),
    ],
)
def test_book_key(path, key):
    assert book_key(path) == key


def test_native_copy_is_canonical():
    paths = [
        "tasi/Subject/cs101/act3_lab23_posey.xls",
        "euses/act3_lab23_posey.xlsx",
        "checkcell/files/act3_lab23_posey.xls",
        "euses/other.xlsx",
    ]
    canonical = canonical_books(paths)
    assert canonical == {
        "tasi/Subject/cs101/act3_lab23_posey.xls": "euses/act3_lab23_posey.xlsx",
        "euses/act3_lab23_posey.xlsx": "euses/act3_lab23_posey.xlsx",
        "checkcell/files/act3_lab23_posey.xls": "euses/act3_lab23_posey.xlsx",
        "euses/other.xlsx": "euses/other.xlsx",
    }


def test_split_is_stable_shared_out_and_overridable():
    keys = [f"book{i}" for i in range(2000)]
    splits = [split_of(k, SplitConfig()) for k in keys]
    assert splits == [split_of(k, SplitConfig()) for k in keys]
    counts = Counter(splits)
    assert 0.77 < counts["train"] / 2000 < 0.83 and 0.08 < counts["dev"] / 2000 < 0.12
    assert splits != [split_of(k, SplitConfig(seed=1)) for k in keys]
    assert split_of("book0", SplitConfig(overrides={"book0": "test"})) == "test"


def test_bad_split_config_names_the_field():
    with pytest.raises(ValueError, match="SplitConfig.train"):
        SplitConfig(train=0.95, dev=0.1)
    with pytest.raises(ValueError, match="overrides"):
        SplitConfig(overrides={"x": "validation"})


def test_same_name_other_sheets_is_another_book():
    sheets = {
        "euses/tables.xlsx": {"Table 1", "Table 2"},
        "tasi/homework/tables.xls": {"Table 1"},
        "poi/Tables.xlsx": {"Exp1", "Exp12"},
    }
    assert canonical_books(sheets, sheets) == {
        "euses/tables.xlsx": "euses/tables.xlsx",
        "tasi/homework/tables.xls": "euses/tables.xlsx",
        "poi/Tables.xlsx": "poi/Tables.xlsx",
    }


def test_a_converted_copy_with_fewer_table_sheets_is_still_a_copy():
    sheets = {"euses/Population.xlsx": {"Pop.I1", "Pop.I4"}, "tasi/Population.xls": {"Pop.I1"}}
    assert canonical_books(sheets, sheets)["tasi/Population.xls"] == "euses/Population.xlsx"
