"""Header rows and columns of a detected table read from a cell-type model's answer.

    rows, cols = typed_counts(table, types)        # types: {(row, col): class}, table coordinates
    table = with_counts(table, rows, cols)          # the same table, its trees built again

The simplest honest use of the model's `top_attribute` and `left_attribute` cells: the top
header is the leading rows of the table where more than half of the non-empty cells (merged
regions counted once, at their anchor) are typed top_attribute, blank rows deciding nothing;
the first other non-empty row ends it, so a title row the model calls metadata above the
column headers leaves the table with no header rows rather than one counting the title. The
left header is the leading columns where more than half of the non-empty cells below the top
header are typed left_attribute. The header limits of `HeaderConfig` (at most 6 rows and 4
columns, never every row or every column) hold as for the detector.

`combine(table, types, how)` gives the bench's rows with the model: `model` takes both counts
from the model alone; `max` takes the larger of the detector's and the model's, count by count
(a row or column is a header when either says so). `max` was chosen among `model`, the model's
rows alone, its columns alone, `max` and `max` on rows or columns alone, on SAUS fold 0 only
(out-of-fold types), by overall header-cell F1: detector 0.916, `model` 0.930, `max` 0.955.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from fortap.table.detect import DEFAULT_TABLES
from fortap.table.headers import HeaderConfig
from fortap.table.hierarchy import left_tree, top_tree
from fortap.table.layout import Layout
from fortap.table.model import Table
from fortap.tasks.cell_types.labels import CLASS_INDEX

RC = tuple[int, int]
TOP, LEFT = CLASS_INDEX["top_attribute"], CLASS_INDEX["left_attribute"]
HOW = ("model", "max")  # how `combine` uses the model (module doc)


def share(types: Mapping[RC, int], cells: list[RC], cls: int) -> float:
    """Share of `cells` typed `cls` (an untyped cell counts against)."""
    return sum(types.get(rc) == cls for rc in cells) / len(cells)


def typed_rows(layout: Layout, types: Mapping[RC, int], cfg: HeaderConfig) -> int:
    """The leading rows mostly typed top_attribute (module doc)."""
    rows = 0
    for r in range(min(layout.n_rows - 1, cfg.max_header_rows)):
        cells = [(r, c) for c in layout.anchors(r)]
        if not cells:
            continue  # a blank row decides nothing
        if share(types, cells, TOP) <= 0.5:
            break
        rows = r + 1
    return rows


def typed_cols(layout: Layout, types: Mapping[RC, int], rows: int, cfg: HeaderConfig) -> int:
    """The leading columns whose cells below `rows` are mostly typed left_attribute."""
    cols = 0
    for c in range(min(layout.n_cols - 1, cfg.max_header_cols)):
        cells = [(r, c) for r in range(rows, layout.n_rows)
                 if not layout.is_covered(r, c) and not layout.cell(r, c).is_empty]  # fmt: skip
        if not cells:
            continue
        if share(types, cells, LEFT) <= 0.5:
            break
        cols = c + 1
    return cols


def typed_counts(table: Table, types: Mapping[RC, int],
                 cfg: HeaderConfig = DEFAULT_TABLES.headers) -> tuple[int, int]:  # fmt: skip
    """(header rows, header columns) of `table` from its cells' types (table coordinates)."""
    layout = Layout(table.cells, table.merged)
    rows = typed_rows(layout, types, cfg)
    return rows, typed_cols(layout, types, rows, cfg)


def with_counts(table: Table, rows: int, cols: int,
                cfg: HeaderConfig = DEFAULT_TABLES.headers) -> Table:  # fmt: skip
    """`table` with `rows` header rows and `cols` header columns, both trees built again by the
    detector's own tree rules."""
    if (rows, cols) == (table.top_header_rows, table.left_header_cols):
        return table
    layout = Layout(table.cells, table.merged)
    return replace(table, top_header_rows=rows, left_header_cols=cols,
                   top_root=top_tree(layout, rows, cols, cfg),
                   left_root=left_tree(layout, rows, cols, cfg))  # fmt: skip


def table_types(table: Table, sheet_types: Mapping[RC, int]) -> dict[RC, int]:
    """The types of `table`'s cells in table coordinates, from sheet coordinates."""
    top, left = table.region.top, table.region.left
    return {(r - top, c - left): k for (r, c), k in sheet_types.items()
            if top <= r <= table.region.bottom and left <= c <= table.region.right}  # fmt: skip


def combine(table: Table, sheet_types: Mapping[RC, int], how: str) -> Table:
    """`table` with the counts `how` takes from the model (module doc)."""
    if how not in HOW:
        raise ValueError(f"how must be one of {HOW}, got {how!r}")
    rows, cols = typed_counts(table, table_types(table, sheet_types))
    if how == "max":
        rows, cols = max(rows, table.top_header_rows), max(cols, table.left_header_cols)
    return with_counts(table, rows, cols)
