"""Each cell's features from a `Sheet`: `sheet_features(sheet, cells) -> CellFeatures`.

What a model of cell types reads besides (or instead of) an encoder, computed from the sheet
that `fortap ingest` reads, so a user's workbook gets the same features as the training data.
`FEATURE_NAMES` declares them once, in this order; a model stores the names it was trained on
and asks for them by name (`CellFeatures.select`), which refuses names it does not know.

- the text (`text_cues`): SAUS's text features and fortap's cues for notes and metadata;
- the cell (`CELL_FEATURES`): empty, number, date or other; a formula; a number's magnitude,
  sign, integrality and number format; the style (bold, italic, indent, alignment, borders,
  fill, font colour); its merged region; its position (index, share and rows to the end);
- the layout (`layout`): the neighbours' emptiness and kinds, the row and column, the number
  block, the row's label, the column's heading and the sum cues.

**SAUS's 43.** 37 have a feature of the same name and definition (the parity test,
`tests/tasks/cell_types/test_features_parity.py`, compares them cell by cell on SAUS), read
the way SAUS reads an .xls: `cell_type=0` an empty cell, `cell_type=2` a number,
`in_year_range` a *text* between 1800 and 2090 (a number there is `number_in_year_range`),
and `is_aggr_formula=1` a formula holding `SUM(` or `AVERAGE(`, which is its meaning for
SAUS's .xlsx sheets; `border_top_type=1` is any top border, because a `CellStyle` says
whether a border is there, not which line. The six others are not in a `Sheet`
(`NOT_FROM_A_SHEET`): font height, underline, vertical alignment, text wrapping and a medium
right border are not read into `CellStyle`, and `ref_val_type=0` is 0 on every SAUS cell.

Letters: N cells, F features.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from fortap.errors import FortapError
from fortap.sheet.model import EMPTY, Cell, Sheet, a1
from fortap.tasks.cell_types.layout import LAYOUT_FEATURES, NUMBER, TEXT, Occupied, layout_cues
from fortap.tasks.cell_types.text_cues import TEXT_FEATURES, text_cues

RC = tuple[int, int]  # the sheet's (row, col), 0-based
CELL_FEATURES = (
    "in_year_range", "cell_type=0", "cell_type=2", "is_aggr_formula=1", "first_row_num",
    "first_col_num", "num_of_cells", "is_bold", "indentation", "h_alignment=0",
    "h_alignment=2", "border_top_type=0", "border_top_type=1", "border_bottom_type=0",
    "border_left_type=0", "border_right_type=0", "cell_borders=0", "fill_patern=0",
    "is_font_color_default",
    # fortap's own
    "row_share", "col_share", "rows_to_end", "is_text", "is_date", "is_other", "has_formula",
    "log_magnitude", "is_negative", "is_integer", "number_in_year_range", "format_percent",
    "format_decimals", "format_thousands", "format_currency", "is_italic", "h_align_left",
    "h_align_right", "merge_rows", "merge_cols",
)  # fmt: skip
FEATURE_NAMES = TEXT_FEATURES + CELL_FEATURES + LAYOUT_FEATURES
NOT_FROM_A_SHEET = ("font_height", "underline_type=0", "v_alignment=2", "is_wraptext",
                    "border_right_type=2", "ref_val_type=0")  # fmt: skip
TOTAL_WORD = TEXT_FEATURES.index("words_like_total")
AGGREGATE_WORD = TEXT_FEATURES.index("aggregate_word")
SPACES = TEXT_FEATURES.index("leading_spaces")
PERCENT_WORD = TEXT_FEATURES.index("percent_word")
KIND_CODE = {"text": TEXT, "number": NUMBER}  # any other occupied kind is 3


@dataclass(frozen=True)
class CellFeatures:
    """The features of some cells of one sheet: `values[i]` belongs to `cells[i]`."""

    names: tuple[str, ...]
    cells: tuple[RC, ...]
    values: np.ndarray  # (N, F) float32

    def select(self, names: Sequence[str]) -> np.ndarray:
        """(N, len(names)) columns by name, in the order asked; an unknown name raises."""
        index = {n: i for i, n in enumerate(self.names)}
        unknown = [n for n in names if n not in index]
        if unknown:
            raise FortapError(f"unknown cell features {unknown}; known: {len(self.names)} names "
                              f"(tasks.cell_types.features.FEATURE_NAMES)")  # fmt: skip
        return self.values[:, [index[n] for n in names]]


def occupied(cell: Cell) -> bool:
    """A cell with a value: not empty, and not a text of no characters."""
    return cell.kind != "empty" and not (cell.kind == "text" and cell.value == "")


def sheet_features(sheet: Sheet, cells: Iterable[RC] | None = None) -> CellFeatures:
    """The `FEATURE_NAMES` of `cells` (default: every occupied cell, row by row). A cell may be
    empty; one outside the sheet's used range raises, naming the book, sheet and cell."""
    full = sorted(rc for rc, cell in sheet.cells.items() if occupied(cell))
    asked = full if cells is None else [(int(r), int(c)) for r, c in cells]
    for r, c in asked:
        if not (0 <= r < sheet.n_rows and 0 <= c < sheet.n_cols):
            raise FortapError(f"{sheet.book}: sheet {sheet.name!r}: cell {a1(max(r, 0), max(c, 0))} "
                              f"({r}, {c}) lies outside the used range of {sheet.n_rows} rows "
                              f"x {sheet.n_cols} columns")  # fmt: skip
    texts = {rc: text_cues(sheet.cells[rc].text) for rc in full}
    occ = _occupied(sheet, full, texts)
    empty_text = text_cues("")
    rows = np.asarray([r for r, _ in asked], dtype=np.int64)
    cols = np.asarray([c for _, c in asked], dtype=np.int64)
    spans = _merge_spans(sheet, rows, cols)  # (N, 2)
    own = [texts.get(rc, empty_text) + _cell_row(sheet, rc, tuple(span))
           for rc, span in zip(asked, spans.tolist(), strict=True)]  # fmt: skip
    layout = layout_cues(occ, rows, cols)  # (N, len(LAYOUT_FEATURES))
    width = len(TEXT_FEATURES) + len(CELL_FEATURES)
    values = np.concatenate([np.asarray(own, dtype=np.float64).reshape(-1, width), layout], 1)
    return CellFeatures(FEATURE_NAMES, tuple(asked), values.astype(np.float32))


def _occupied(sheet: Sheet, full: list[RC], texts: dict[RC, tuple[float, ...]]) -> Occupied:
    kinds, values, label, heading = [], [], [], []
    for rc in full:
        cell = sheet.cells[rc]
        kinds.append(KIND_CODE.get(cell.kind, 3))
        values.append(_number(sheet, rc, cell) if cell.kind == "number" else 0.0)
        cues = texts[rc]
        depth = cues[SPACES] + 2 * cell.style.indent
        words = (cues[TOTAL_WORD], cues[AGGREGATE_WORD], cues[PERCENT_WORD])
        label.append((*words, depth, float(cell.style.bold)))
        heading.append((cues[PERCENT_WORD], cues[TOTAL_WORD]))
    return Occupied(np.asarray([r for r, _ in full], dtype=np.int64).reshape(-1),
                    np.asarray([c for _, c in full], dtype=np.int64).reshape(-1),
                    np.asarray(kinds, dtype=np.int64), np.asarray(values, dtype=np.float64),
                    np.asarray(label, dtype=np.float64).reshape(-1, 5),
                    np.asarray(heading, dtype=np.float64).reshape(-1, 2))  # fmt: skip


def _number(sheet: Sheet, rc: RC, cell: Cell) -> float:
    try:
        value = float(cell.value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value):
        raise FortapError(f"{sheet.book}: sheet {sheet.name!r}: cell {a1(*rc)}: a number cell "
                          f"holds {cell.value!r}, not a finite number")  # fmt: skip
    return value


def _merge_spans(sheet: Sheet, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(N, 2) rows and columns of the merged region each cell lies in (1, 1 outside any)."""
    spans = np.ones((len(rows), 2), dtype=np.int64)
    for m in sheet.merged:
        inside = (rows >= m.top) & (rows <= m.bottom) & (cols >= m.left) & (cols <= m.right)
        spans[inside] = (m.n_rows, m.n_cols)
    return spans


def _cell_row(sheet: Sheet, rc: RC, span: tuple[int, int]) -> tuple[float, ...]:
    """The `CELL_FEATURES` of one cell (module doc)."""
    r, c = rc
    cell = sheet.cells.get(rc, EMPTY)
    st, kind, has_value = cell.style, cell.kind, occupied(cell)
    number = _number(sheet, rc, cell) if kind == "number" else 0.0
    stripped = cell.text.strip() if kind == "text" else ""
    year_text = stripped.isascii() and stripped.isdigit() and 1800 < int(stripped) < 2091
    formula = (cell.formula or "").upper()
    fmt = st.number_format.split(";")[0]
    decimals = len(fmt.split(".", 1)[1].split("%")[0].rstrip("_)- ")) if "." in fmt else 0
    borders = (st.border_top, st.border_bottom, st.border_left, st.border_right)
    saus = (year_text, not has_value, kind == "number",
            "=SUM(" in formula or "=AVERAGE(" in formula, r, c, span[0] * span[1], st.bold,
            st.indent, st.h_align in (None, "general", "left"), st.h_align == "center",
            not st.border_top, st.border_top, not st.border_bottom, not st.border_left,
            not st.border_right, not any(borders), st.fill_color is None,
            st.font_color is None)  # fmt: skip
    own = (r / sheet.n_rows, c / sheet.n_cols, sheet.n_rows - 1 - r, kind == "text" and has_value,
           kind == "date", kind in ("bool", "error"), cell.formula is not None,
           math.log10(1 + abs(number)), number < 0, kind == "number" and number.is_integer(),
           kind == "number" and number.is_integer() and 1800 < number < 2091, "%" in fmt,
           min(decimals, 10), "," in fmt, any(s in fmt for s in "$€£¥"), st.italic,
           st.h_align == "left", st.h_align == "right", span[0], span[1])  # fmt: skip
    return tuple(float(v) for v in saus + own)
