"""Tables in sheets: regions, header rows/columns, header trees, tree coordinates, JSON.

`detect_tables(sheet)` finds every table of a `Sheet`; `fortap.table.io` reads and writes them.
"""

from fortap.table.detect import TableConfig, build_table, detect_tables

__all__ = ["TableConfig", "build_table", "detect_tables"]
