"""SAUS lines -> sheets: the feature -> style mapping, numbers and codes, blank labelled cells,
duplicate lines, and the folds grouped by file."""

from __future__ import annotations

import gzip
import json

import pytest

from fortap.errors import FortapError
from fortap.sheet.model import CellStyle
from fortap.tasks.cell_types.labels import CLASS_INDEX, NO_LABEL
from fortap.tasks.cell_types.saus import read_saus, saus_sheet, saus_style
from fortap.tasks.cell_types.split import (
    FOLDS_FILE,
    fold_sides,
    load_folds,
    make_folds,
    write_folds,
)

from .sheets import NAMES, feature, saus_record


def write_saus(path, records) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")


def test_saus_features_map_to_the_style_a_reader_gives():
    names = {n: i for i, n in enumerate(NAMES)}
    assert saus_style(feature(), names) == CellStyle()
    assert saus_style(feature(bold=1.0, indent=2.0, top=1.0), names) == CellStyle(
        bold=True, indent=2, border_top=True
    )
    assert saus_style(feature(general=0.0, center=1.0), names).h_align == "center"
    assert saus_style(feature(general=0.0), names).h_align == "other"


def test_saus_sheet_numbers_codes_none_and_leading_spaces():
    sheet = saus_sheet(saus_record("10s0001.xls"))
    assert (sheet.name, sheet.book, sheet.n_rows, sheet.n_cols) == ("Data", "10s0001.xls", 3, 3)
    assert sheet.cell(1, 1).value == 2001.0 and sheet.cell(1, 1).kind == "number"
    assert sheet.cell(2, 1).value == "01" and sheet.cell(2, 1).kind == "text"  # a code
    assert sheet.cell(2, 2).is_empty  # SAUS's "None"
    assert sheet.cell(2, 0).value == "  Ohio" and sheet.cell(2, 0).style.indent == 2
    assert sheet.cell(0, 0).style.bold


def test_read_saus_keeps_labelled_blank_cells_and_the_first_copy(tmp_path):
    first, copy = saus_record("10s0001.xls"), saus_record("10s0001.xls")
    copy["annotations"][0][0] = "notes"  # a second line of the same sheet is left out
    unlabelled = saus_record("10s0002.xls", "Notes")
    unlabelled["annotations"] = [[None] * 3 for _ in range(3)]
    write_saus(tmp_path / "saus.jl.gz", [first, copy, unlabelled])
    [s] = read_saus(tmp_path)
    assert s.key == "10s0001.xls!Data"
    assert s.labels[0] == (CLASS_INDEX["metadata"], NO_LABEL, NO_LABEL)
    assert s.labels[2] == (CLASS_INDEX["left_attribute"], CLASS_INDEX["data"], CLASS_INDEX["data"])
    assert not s.sheet.cell(2, 2).is_empty and s.sheet.cell(2, 2).text == ""  # labelled "None"
    table = s.table()
    assert (table.n_rows, table.n_cols) == (3, 3)  # the whole used range, title included


def test_read_saus_names_the_file_and_an_unknown_label(tmp_path):
    with pytest.raises(FortapError, match="no SAUS annotations"):
        read_saus(tmp_path)
    bad = saus_record("10s0001.xls")
    bad["annotations"][0][0] = "title"
    write_saus(tmp_path / "saus.jl.gz", [bad])
    with pytest.raises(FortapError, match="10s0001.xls!Data: unknown SAUS cell type 'title'"):
        read_saus(tmp_path)


def test_folds_keep_a_files_sheets_together_and_are_deterministic(tmp_path):
    records = [saus_record(f"10s000{i}.xls", sheet) for i in range(7) for sheet in ("2001", "2002")]
    write_saus(tmp_path / "saus.jl.gz", records)
    sheets = read_saus(tmp_path)
    folds = make_folds(sheets)
    assert folds == make_folds(list(reversed(sheets)))
    assert sorted(f for fold in folds for f in fold) == [f"10s000{i}.xls" for i in range(7)]
    assert sorted(len(f) for f in folds) == [1, 1, 1, 2, 2]  # balanced by cells
    write_folds(folds, tmp_path / "folds.json")
    assert load_folds(tmp_path / "folds.json") == folds
    train, test = fold_sides(sheets, folds, 0)
    assert {s.file for s in test} == set(folds[0]) and len(train) + len(test) == 14
    with pytest.raises(FortapError, match="lie in no fold"):
        fold_sides(sheets, [folds[0]], 0)


def test_the_shipped_folds_are_the_rule_applied_to_saus(data_dir):
    sheets = read_saus(data_dir / "saus_ctc")
    assert len(sheets) == 220 and len({s.file for s in sheets}) == 200
    assert load_folds(FOLDS_FILE) == make_folds(sheets)


def test_as_saus_keeps_what_saus_shows_and_drops_formulas_merges_and_colours():
    from fortap.sheet.model import Cell, Region, Sheet
    from fortap.tasks.cell_types.saus import as_saus

    style = CellStyle(bold=True, indent=1, h_align="center", border_top=True, border_bottom=True,
                      fill_color="FFEEEEEE", font_color="FFFF0000")  # fmt: skip
    total = Cell(12.0, "number", formula="=SUM(A1:A2)", style=style)
    sheet = Sheet("S", "b.xlsx", 3, 2, {(2, 0): total}, merged=(Region(0, 0, 0, 1),))
    seen = as_saus(sheet)
    assert seen.merged == () and seen.cell(2, 0).formula is None and seen.cell(2, 0).value == 12.0
    assert seen.cell(2, 0).style == CellStyle(
        bold=True, indent=1, h_align="center", border_top=True
    )
