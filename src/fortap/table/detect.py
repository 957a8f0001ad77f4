"""Sheet -> tables: regions, then header rows and columns, then both header trees.

`detect_tables(sheet)` is the whole step; `build_table(sheet, region)` runs the header part on a
region already known (the HiTab benchmark gives one region per table).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fortap.sheet.model import EMPTY, Region, Sheet
from fortap.table.headers import HeaderConfig, count_header_cols, count_header_rows
from fortap.table.hierarchy import left_tree, top_tree
from fortap.table.layout import Layout
from fortap.table.model import Table
from fortap.table.regions import RegionConfig, find_regions


@dataclass(frozen=True)
class TableConfig:
    """Table detection: where tables are (`regions`) and what their headers are (`headers`)."""

    regions: RegionConfig = field(default_factory=RegionConfig)
    headers: HeaderConfig = field(default_factory=HeaderConfig)


DEFAULT_TABLES = TableConfig()


def detect_tables(sheet: Sheet, cfg: TableConfig = DEFAULT_TABLES) -> list[Table]:
    """Every table of `sheet` with its headers, trees and context, top to bottom."""
    scan = find_regions(sheet, cfg.regions)
    return [build_table(sheet, t.region, t.context, cfg.headers) for t in scan.tables]


def build_table(
    sheet: Sheet,
    region: Region,
    context: tuple[str, ...] = (),
    cfg: HeaderConfig = DEFAULT_TABLES.headers,
) -> Table:
    """The table in `region` of `sheet`: cells, clipped merges, header counts and trees."""
    cells = tuple(
        tuple(sheet.cells.get((r, c), EMPTY) for c in range(region.left, region.right + 1))
        for r in range(region.top, region.bottom + 1)
    )
    merged = tuple(
        Region(
            max(m.top, region.top) - region.top,
            max(m.left, region.left) - region.left,
            min(m.bottom, region.bottom) - region.top,
            min(m.right, region.right) - region.left,
        )
        for m in sheet.merged
        if m.top <= region.bottom
        and region.top <= m.bottom
        and m.left <= region.right
        and region.left <= m.right
    )
    layout = Layout(cells, merged)
    rows = count_header_rows(layout, cfg)
    cols = count_header_cols(layout, rows, cfg)
    return Table(
        book=sheet.book,
        sheet=sheet.name,
        region=region,
        cells=cells,
        merged=merged,
        top_header_rows=rows,
        left_header_cols=cols,
        top_root=top_tree(layout, rows, cols, cfg),
        left_root=left_tree(layout, rows, cols, cfg),
        context=context,
    )
