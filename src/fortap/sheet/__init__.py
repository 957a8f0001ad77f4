"""Reading spreadsheets: .xlsx/.xlsm (openpyxl), .xls/.ods (LibreOffice -> .xlsx), .csv -> `Sheet`.

`read_workbook` and `read_workbooks` are imported on first use: the readers pull in openpyxl
(about a second), which code that only needs the `Sheet` model should not pay for.
"""

from fortap.sheet.limits import ReadLimits
from fortap.sheet.model import EMPTY, Cell, CellStyle, Region, Sheet, Workbook, a1, column_letter

__all__ = [
    "EMPTY",
    "Cell",
    "CellStyle",
    "ReadLimits",
    "Region",
    "Sheet",
    "Workbook",
    "a1",
    "column_letter",
    "read_workbook",
    "read_workbooks",
]

_LAZY = {"read_workbook", "read_workbooks"}


def __getattr__(name: str):
    if name in _LAZY:
        from fortap.sheet import read

        return getattr(read, name)
    raise AttributeError(f"module 'fortap.sheet' has no attribute {name!r}")
