"""A SAUS sheet as fortap's reader gives its source file: `source_sheet(SausSheet) -> Sheet`.

The cell features (`features`) are computed from the sheet a reader gives, so that a model
trained on SAUS reads a user's workbook the way it read SAUS. SAUS ships its texts and its
features but not its .xls files, so this view rebuilds, from `saus.jl.gz`, what a reader of
the source file would give:

- a cell holds a number where the file stored one (SAUS's `cell_type=2`, the .xls numeric-cell
  flag; in SAUS's nine .xlsx sheets, `cell_type=0`, the .xlsx numeric type, or `cell_type=2`,
  a formula, whose cached value SAUS gives), and text everywhere else, even a text that reads
  as a number ("1990", "01", "1,000"), as a reader keeps it;
- a text keeps the leading spaces that SAUS counts (`leading_spaces`), and a cell whose text
  SAUS strips to nothing but counts spaces in holds those spaces; SAUS's texts are stripped,
  so trailing spaces are lost;
- the style is `saus.saus_style` (bold, indent, alignment, a top border), on every labelled
  cell, blank ones included;
- SAUS's "None" is an empty cell, and merged regions are not rebuilt: SAUS gives a region's
  cell count (`num_of_cells`), not its corners.

`saus.saus_sheet`, which the encoders read, decides numbers from the text instead; the two
views differ mostly in the kind and text of about 11,400 labelled cells (see `saus`).
"""

from __future__ import annotations

from fortap.sheet.model import DEFAULT_STYLE, Cell, Sheet
from fortap.tasks.cell_types.labels import NO_LABEL
from fortap.tasks.cell_types.saus import SausSheet, saus_style


def source_sheet(s: SausSheet) -> Sheet:
    """The `Sheet` a reader gives the source of `s` (module doc)."""
    names = {n: i for i, n in enumerate(s.feature_names)}
    xlsx = s.file.lower().endswith(".xlsx")
    number_flags = [names["cell_type=0"], names["cell_type=2"]] if xlsx else [names["cell_type=2"]]
    spaces = names["leading_spaces"]
    cells: dict[tuple[int, int], Cell] = {}
    for r, row in enumerate(s.texts):
        for c, text in enumerate(row):
            f = s.features[r][c]
            style = saus_style(f, names)
            labelled = s.labels[r][c] != NO_LABEL
            if text == "" and f[spaces] > 0:  # a text of spaces alone, which SAUS strips
                cells[(r, c)] = Cell(" " * int(f[spaces]), "text", style=style)
                continue
            if text in ("", "None"):
                if labelled and style != DEFAULT_STYLE:
                    cells[(r, c)] = Cell(None, "empty", style=style)
                continue
            value = _number(text) if any(f[i] > 0 for i in number_flags) else None
            if value is not None:
                cells[(r, c)] = Cell(value, "number", style=style)
            else:
                cells[(r, c)] = Cell(" " * int(f[spaces]) + text, "text", style=style)
    return Sheet(s.sheet.name, s.file, s.sheet.n_rows, s.sheet.n_cols, cells)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
