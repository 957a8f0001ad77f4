"""Small workbooks written with openpyxl for the engine, preview and CLI tests.

`sales_book`: regional sales per quarter with a filled-down total column, a growth column whose
last region divides by zero, and a total row whose cells are empty; a second sheet with a space
in its name, and an empty sheet.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl

REGIONS = [("North", 120, 130), ("South", 80, 95), ("East", 150, 160), ("West", 0, 60)]


def sales_book(path: Path) -> Path:
    """Sales!A1:E6: Region | Q1 | Q2 | Total (=B+C) | Growth (=C/B-1); row 6 'Total' empty."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Q1", "Q2", "Total", "Growth"])
    for i, (region, q1, q2) in enumerate(REGIONS, start=2):
        ws.append([region, q1, q2, f"=B{i}+C{i}", f"=C{i}/B{i}-1"])
    ws.append(["Total"])
    other = wb.create_sheet("My Sheet")
    other.append(["Item", "Cost"])
    for item, cost in (("Rent", 900), ("Food", 300), ("Fuel", 100)):
        other.append([item, cost])
    other.append(["Total"])
    wb.create_sheet("Notes")
    wb.save(path)
    return path
