"""The extracted cell features against SAUS's own 43 (`saus.jl.gz`), feature by feature.

SAUS ships its texts and features, not its .xls files, so the sheets compared are the ones a
reader would give of the source files as far as `saus.jl.gz` records them
(`saus_source.source_sheet`). Every labelled cell of every 4th SAUS sheet is compared (about
40,000 cells), except:

- cells of a merged region (SAUS's `num_of_cells` > 1, 2 % of labelled cells): SAUS gives
  every cell of a region but its last the features of the region's first cell, and it gives
  no region's corners, so the regions are not rebuilt;
- cells whose SAUS text is "None", which SAUS writes for empty cells (one real label "None"
  cannot be told from them).

What agrees, and how closely (`AGREE`, `TEXT_AGREE`, `NUMBER_TEXT`, `XLS_ONLY`, `MOSTLY`):

- the style features, exactly, but by construction: the sheet's style is rebuilt from them
  (`saus.saus_style`), so they test the mapping, not a reader;
- the text features of text and empty cells, exactly, but for `length` (SAUS's texts are
  stripped and its length counts trailing spaces, so the extracted length is never longer
  and equal on 93 % or more) and `words` (fortap's tokenizer rules against NLTK's: 99 %);
- the text features of numbers, exactly, once given SAUS's text of a number: Python's text of
  the float the .xls stores ("1998.0"), and nothing for a zero. The extractor reads a number's
  text as fortap shows it ("1998"), so a whole number's `length` is 2 shorter and its
  `punctuations` 0 (the ".");
- `cell_type=0`, `cell_type=2` and `in_year_range`, exactly on the .xls sheets; on the nine
  .xlsx sheets SAUS means other things by them (the .xlsx numeric type, which empty cells
  share; a formula; a year stored as a number);
- `num_of_neighbors=k`, on 99 % or more: on a few sheets (10s0854.xls, 10s1060.xls) SAUS's
  features of a block of rows describe other rows than its texts.

What cannot agree (`CANNOT`), each reason checked where the data shows it:

- `is_aggr_formula=1`: on an .xls SAUS sets it on every number, not on aggregate formulas;
- `border_top_type=0`, `border_bottom_type=0`, `border_left_type=0`, `border_right_type=0`,
  `cell_borders=0`, `fill_patern=0` (`XLS_CODES`): SAUS's .xls reading compares the style's
  codes as texts to numbers, so all are 0 on every .xls cell; `is_font_color_default` on an
  .xls means a white font (1 labelled cell). Their .xlsx values are real, but the sheet's
  style is rebuilt only for bold, indent, alignment and the top border;
- `num_of_cells`: merged regions are not rebuilt (above);
- `features.NOT_FROM_A_SHEET`: font height, underline, vertical alignment, wrapping and a
  medium right border are not in a `CellStyle`; `ref_val_type=0` is 0 on every SAUS cell.
"""

from __future__ import annotations

import numpy as np
import pytest

from fortap.tasks.cell_types.features import FEATURE_NAMES, NOT_FROM_A_SHEET, sheet_features
from fortap.tasks.cell_types.labels import NO_LABEL
from fortap.tasks.cell_types.saus import read_saus
from fortap.tasks.cell_types.saus_source import source_sheet
from fortap.tasks.cell_types.text_cues import SAUS_TEXT, TEXT_FEATURES, text_cues

STEP = 4  # every 4th sheet: about 40,000 labelled cells in a few seconds
STYLE = ("is_bold", "indentation", "h_alignment=0", "h_alignment=2", "border_top_type=1")
AGREE = STYLE + ("first_row_num", "first_col_num")
TEXT_AGREE = tuple(n for n in SAUS_TEXT if n not in ("length", "words"))
XLS_ONLY = ("cell_type=0", "cell_type=2", "in_year_range")
NEIGHBOURS = tuple(f"num_of_neighbors={k}" for k in range(5))
MOSTLY = {"length": 0.93, "words": 0.99, **dict.fromkeys(NEIGHBOURS, 0.99)}
XLS_CODES = ("border_top_type=0", "border_bottom_type=0", "border_left_type=0",
             "border_right_type=0", "cell_borders=0", "fill_patern=0")  # fmt: skip
CANNOT = ("is_aggr_formula=1", *XLS_CODES, "is_font_color_default", "num_of_cells",
          *NOT_FROM_A_SHEET)  # fmt: skip


@pytest.fixture(scope="module")
def compared(data_dir):
    """Per compared cell: SAUS's 43, the extracted ones under SAUS's names, and what it is."""
    saus, ours, kinds, xls, zero_or_text = [], [], [], [], []
    sheets = read_saus(data_dir / "saus_ctc")[::STEP]
    names = sheets[0].feature_names
    shared = [n for n in names if n in FEATURE_NAMES]
    for s in sheets:
        sheet = source_sheet(s)
        at = {n: i for i, n in enumerate(names)}
        cells = [(r, c) for r, row in enumerate(s.labels) for c, label in enumerate(row)
                 if label != NO_LABEL and s.features[r][c][at["num_of_cells"]] <= 1
                 and s.texts[r][c] != "None"]  # fmt: skip
        saus.append(np.asarray([s.features[r][c] for r, c in cells]).reshape(-1, len(names)))
        ours.append(sheet_features(sheet, cells).select(shared))
        kinds += [sheet.cell(r, c).kind for r, c in cells]
        xls += [s.file.endswith(".xls")] * len(cells)
        for r, c in cells:  # SAUS's text of a number (module doc)
            cell = sheet.cell(r, c)
            zero_or_text.append("" if cell.kind == "number" and cell.value == 0 else s.texts[r][c])
    return {"names": names, "shared": shared, "saus": np.concatenate(saus),
            "ours": np.concatenate(ours), "kinds": np.asarray(kinds), "xls": np.asarray(xls),
            "number_texts": zero_or_text}  # fmt: skip


def agreement(d, name: str, where: np.ndarray) -> float:
    theirs = d["saus"][where, d["names"].index(name)]
    ours = d["ours"][where, d["shared"].index(name)]
    return float(np.mean(np.isclose(theirs, ours)))


def test_every_saus_feature_is_compared_or_listed_as_one_that_cannot_agree(compared):
    names = set(compared["names"])
    checked = set(AGREE + TEXT_AGREE + XLS_ONLY + tuple(MOSTLY))
    assert checked | set(CANNOT) == names and not checked & set(CANNOT)
    assert set(compared["shared"]) == names - set(NOT_FROM_A_SHEET)
    assert len(compared["kinds"]) > 30_000


def test_style_position_and_text_features_agree_exactly(compared):
    d = compared
    everywhere = np.ones(len(d["kinds"]), bool)
    for name in AGREE:
        assert agreement(d, name, everywhere) == 1.0, name
    not_number = d["kinds"] != "number"
    for name in TEXT_AGREE:
        assert agreement(d, name, not_number) == 1.0, name


def test_length_is_never_longer_and_words_and_neighbours_mostly_agree(compared):
    d = compared
    text = d["kinds"] == "text"
    theirs = d["saus"][text, d["names"].index("length")]
    assert np.all(d["ours"][text, d["shared"].index("length")] <= theirs)  # trailing spaces
    for name, share in MOSTLY.items():
        where = text if name in ("length", "words") else np.ones(len(text), bool)
        assert agreement(d, name, where) >= share, name


def test_a_numbers_text_features_are_saus_given_saus_text_of_the_number(compared):
    d = compared
    number = np.flatnonzero(d["kinds"] == "number")
    expected = np.asarray([text_cues(d["number_texts"][i])[: len(SAUS_TEXT)] for i in number])
    theirs = d["saus"][number][:, [d["names"].index(n) for n in SAUS_TEXT]]
    assert np.array_equal(expected, theirs)
    whole = d["ours"][number, d["shared"].index("length")]  # the extractor's own text: "1998"
    assert np.mean(whole < theirs[:, SAUS_TEXT.index("length")]) > 0.3


def test_cell_kinds_and_year_texts_agree_on_the_xls_sheets(compared):
    for name in XLS_ONLY:
        assert agreement(compared, name, compared["xls"]) == 1.0, name
    assert agreement(compared, "cell_type=2", ~compared["xls"]) < 1.0  # .xlsx: a formula


def test_the_reasons_the_others_cannot_agree(compared):
    d = compared
    xls = d["saus"][d["xls"]]
    col = d["names"].index
    # .xls: SAUS's aggregate-formula flag is its numeric-cell flag
    assert np.mean(xls[:, col("is_aggr_formula=1")] == xls[:, col("cell_type=2")]) > 0.999
    for name in XLS_CODES:  # .xls: codes compared as texts to numbers, 0 on every cell
        assert not xls[:, col(name)].any(), name
    assert np.mean(xls[:, col("is_font_color_default")]) < 0.001  # .xls: a white font
    assert TEXT_FEATURES[: len(SAUS_TEXT)] == SAUS_TEXT
