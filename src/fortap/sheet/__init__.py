"""Reading spreadsheets: .xlsx/.xlsm (openpyxl), .xls/.ods (LibreOffice -> .xlsx), .csv -> `Sheet`."""

from fortap.sheet.model import EMPTY, Cell, CellStyle, Region, Sheet, Workbook, a1, column_letter

__all__ = ["EMPTY", "Cell", "CellStyle", "Region", "Sheet", "Workbook", "a1", "column_letter"]
