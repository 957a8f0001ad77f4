"""The Excel tables of one worksheet (`xl/tables/tableN.xml`) -> `TableDef`s.

A sheet names its tables in `<tableParts>` by relationship id; the sheet's `.rels` part maps
each id to the table's XML, which holds the display name formulas use, the range, the header
and totals row counts and the column names. Structured references (`Sales[Qty]`) are
resolved against these (`fortap.formula.structured`). A damaged table part is skipped, as
Excel's repair drops it; the sheet's cells are still read.
"""

from __future__ import annotations

from openpyxl.packaging.relationship import get_dependents, get_rels_path
from openpyxl.utils import range_boundaries
from openpyxl.worksheet.table import Table
from openpyxl.xml.functions import fromstring

from fortap.sheet.model import Region, TableDef


def read_tables(archive, sheet_part: str, table_ids: list[str]) -> tuple[TableDef, ...]:
    """The tables whose relationship ids `table_ids` the sheet at `sheet_part` lists."""
    if not table_ids:
        return ()
    rels_path = get_rels_path(sheet_part)
    if rels_path not in archive.namelist():
        return ()
    rels = get_dependents(archive, rels_path)
    out = []
    for rid in table_ids:
        try:
            found = table_def(Table.from_tree(fromstring(archive.read(rels.get(rid).target))))
        except (KeyError, TypeError, ValueError, AttributeError, SyntaxError):
            continue  # a missing or malformed part: Excel drops the table too
        if found is not None:
            out.append(found)
    return tuple(out)


def table_def(table: Table) -> TableDef | None:
    """openpyxl's `Table` -> `TableDef`; None when its range or columns do not fit together."""
    left, top, right, bottom = range_boundaries(table.ref)
    if None in (left, top, right, bottom) or not table.displayName:
        return None
    columns = tuple(str(c.name or "") for c in table.tableColumns)
    if len(columns) != right - left + 1:
        return None
    header = 1 if table.headerRowCount is None else int(table.headerRowCount)
    totals = int(table.totalsRowCount or 0)
    region = Region(top - 1, left - 1, bottom - 1, right - 1)
    if header + totals > region.n_rows:
        return None
    return TableDef(table.displayName, region, columns, header, totals)
