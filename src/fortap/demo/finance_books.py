"""Sample workbooks about money: a departmental budget with staffing, sales by region with reps.

Each recipe takes an explicit `random.Random` and returns an openpyxl `Workbook` whose formulas
are the kind people write by hand; `fortap.demo.samples` computes their cached values.
"""

from __future__ import annotations

import random

from openpyxl import Workbook

from fortap.demo.layout import (
    INT,
    PCT,
    col,
    fill_down,
    fill_right,
    header,
    header_row,
    label,
    note,
    put,
    put_row,
    title,
    total_rule,
    widths,
)

DEPARTMENTS = {
    "Public Safety": ("Police", "Fire", "Emergency Services"),
    "Public Works": ("Roads", "Parks", "Water", "Sanitation"),
    "General Government": ("Administration", "Finance", "Information Technology"),
}
REGIONS = {
    "Americas": ("North America", "Latin America"),
    "Europe": ("Western Europe", "Central Europe", "Nordics"),
    "Asia Pacific": ("Japan", "China", "Australia & NZ"),
}
REPS = ("A. Garcia", "B. Chen", "C. Okafor", "D. Novak", "E. Silva", "F. Tanaka", "G. Murphy")


def budget(rng: random.Random) -> Workbook:
    """Budget vs actual by department: two-level top header, group rows, subtotals, shares."""
    wb = Workbook()
    ws = wb.active
    ws.title = "FY2024 Budget"
    title(ws, 1, "City of Riverside - Departmental Budget, FY2024")
    note(ws, 2, "(thousands of dollars)")
    header(ws, 4, 1, "Department", rows=2)
    header_row(ws, 4, 2, [("FY2023", 2), ("FY2024", 2), ("Change, FY2024 vs FY2023", 2)])
    header(ws, 4, 8, "Share of total", rows=2)
    header(ws, 4, 9, "Status", rows=2)
    header_row(
        ws, 5, 2, [(t, 1) for t in ("Budget", "Actual", "Budget", "Forecast", "Amount", "Percent")]
    )
    row, value_rows, subtotals = 6, [], []
    for group, items in DEPARTMENTS.items():
        label(ws, row, 1, group, bold=True)
        first = row = row + 1
        for item in items:
            label(ws, row, 1, item, level=1)
            b23 = rng.randrange(400, 6000)
            b24 = round(b23 * rng.uniform(0.98, 1.1))
            put_row(
                ws,
                row,
                2,
                [
                    b23,
                    round(b23 * rng.uniform(0.9, 1.08)),
                    b24,
                    round(b24 * rng.uniform(0.93, 1.07)),
                ],
                INT,
            )
            value_rows.append(row)
            row += 1
        label(ws, row, 1, f"Total {group}", bold=True)
        fill_right(ws, row, range(2, 6), f"=SUM({{c}}{first}:{{c}}{row - 1})", INT, bold=True)
        value_rows.append(row)
        subtotals.append(row)
        row += 1
    grand = row
    label(ws, grand, 1, "Total, all departments", bold=True)
    fill_right(ws, grand, range(2, 6), "=" + "+".join(f"{{c}}{r}" for r in subtotals), INT)
    value_rows.append(grand)
    fill_down(ws, 6, value_rows, "=E{r}-C{r}", INT)
    fill_down(ws, 7, value_rows, "=ROUND(F{r}/C{r},3)", PCT)
    fill_down(ws, 8, value_rows, f"=E{{r}}/$E${grand}", PCT)
    fill_down(ws, 9, value_rows, '=IF(E{r}>D{r},"Over budget","Within budget")')
    total_rule(ws, grand, 1, 9)
    note(
        ws,
        grand + 2,
        "Note: FY2024 forecast as of 31 March 2024; change compares it with FY2023 actuals.",
    )
    note(ws, grand + 3, "Source: Riverside Finance Department (illustrative figures).")
    widths(ws, 30, 12, 9)
    _staffing(wb.create_sheet("Staffing"), rng)
    return wb


def _staffing(ws, rng: random.Random) -> None:
    """Two tables on one sheet, separated by empty rows: headcount by year, then salaries."""
    depts = [d for items in DEPARTMENTS.values() for d in items]
    title(ws, 1, "Full-time staff by department", size=12)
    header_row(
        ws, 3, 1, [("Department", 1), *[(y, 1) for y in range(2021, 2025)], ("Change 2021-2024", 1)]
    )
    for i, dept in enumerate(depts):
        r = 4 + i
        label(ws, r, 1, dept)
        n = rng.randrange(8, 120)
        put_row(
            ws,
            r,
            2,
            [n, n + rng.randrange(-3, 6), n + rng.randrange(-4, 9), n + rng.randrange(-5, 12)],
            INT,
        )
        put(ws, r, 6, f"=E{r}-B{r}", INT)
    last = 3 + len(depts)
    label(ws, last + 1, 1, "Total", bold=True)
    fill_right(ws, last + 1, range(2, 7), f"=SUM({{c}}4:{{c}}{last})", INT)
    total_rule(ws, last + 1, 1, 6)

    top = last + 4
    title(ws, top, "Average salary by department (dollars)", size=12)
    header_row(ws, top + 2, 1, [("Department", 1), ("2023", 1), ("2024", 1), ("Increase", 1)])
    first = top + 3
    for i, dept in enumerate(depts):
        r = first + i
        label(ws, r, 1, dept)
        pay = rng.randrange(42_000, 98_000, 100)
        put_row(ws, r, 2, [pay, round(pay * rng.uniform(1.0, 1.06), -2)], INT)
        put(ws, r, 4, f"=ROUND(C{r}/B{r}-1,3)", PCT)
    end = first + len(depts) - 1
    for k, (name, fn) in enumerate((("Highest", "MAX"), ("Lowest", "MIN"), ("Average", "AVERAGE"))):
        r = end + 1 + k
        label(ws, r, 1, name, bold=True)
        fill_right(ws, r, range(2, 4), f"=ROUND({fn}({{c}}{first}:{{c}}{end}),0)", INT)
    note(ws, end + 5, "Salaries are annual base pay of full-time staff.")
    widths(ws, 26, 12, 6)


def sales(rng: random.Random) -> Workbook:
    """Quarterly sales by region: year bands over quarters, group rows that carry subtotals."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Sales by Region"
    title(ws, 1, "Northwind Traders - Net Sales by Region and Quarter")
    note(ws, 2, "(US dollars)")
    header(ws, 4, 1, "Region", rows=2)
    header_row(ws, 4, 2, [("2023", 5), ("2024", 5)])
    header(ws, 4, 12, "Growth", rows=2)
    header_row(ws, 5, 2, [(t, 1) for t in ("Q1", "Q2", "Q3", "Q4", "Total") * 2])
    quarters = [*range(2, 6), *range(7, 11)]
    row, group_rows = 6, []
    for group, items in REGIONS.items():
        label(ws, row, 1, group, bold=True)
        fill_right(
            ws, row, quarters, f"=SUM({{c}}{row + 1}:{{c}}{row + len(items)})", INT, bold=True
        )
        group_rows.append(row)
        for i, item in enumerate(items, start=1):
            label(ws, row + i, 1, item, level=1)
            base = rng.randrange(50_000, 400_000)
            q23 = [round(base * rng.uniform(0.85, 1.2)) for _ in range(4)]
            q24 = [round(v * rng.uniform(0.9, 1.25)) for v in q23]
            put_row(ws, row + i, 2, q23, INT)
            put_row(ws, row + i, 7, q24, INT)
        row += len(items) + 1
    label(ws, row, 1, "Total", bold=True)
    fill_right(ws, row, quarters, "=" + "+".join(f"{{c}}{r}" for r in group_rows), INT)
    fill_down(ws, 6, range(6, row + 1), "=SUM(B{r}:E{r})", INT)
    fill_down(ws, 11, range(6, row + 1), "=SUM(G{r}:J{r})", INT)
    fill_down(ws, 12, range(6, row + 1), "=K{r}/F{r}-1", PCT)
    total_rule(ws, row, 1, 12)
    note(ws, row + 2, "Growth compares the 2024 total with the 2023 total.")
    widths(ws, 22, 11, 12)
    _reps(wb.create_sheet("Representatives"), rng)
    return wb


def _reps(ws, rng: random.Random) -> None:
    """Targets and bonuses; the bonus reads a commission rate from a second table below."""
    title(ws, 1, "Sales representatives, 2024", size=12)
    header_row(
        ws,
        3,
        1,
        [
            (t, 1)
            for t in (
                "Representative",
                "Region",
                "Target",
                "Actual",
                "Attainment",
                "Target met",
                "Bonus",
            )
        ],
    )
    last = 3 + len(REPS)
    rate_row = last + 6
    for i, rep in enumerate(REPS):
        r = 4 + i
        label(ws, r, 1, rep)
        put(ws, r, 2, rng.choice(list(REGIONS)))
        target = rng.randrange(200_000, 600_000, 10_000)
        put_row(ws, r, 3, [target, round(target * rng.uniform(0.8, 1.25))], INT)
    fill_down(ws, 5, range(4, last + 2), "=ROUND(D{r}/C{r},3)", PCT)
    fill_down(ws, 6, range(4, last + 1), '=IF(D{r}>=C{r},"Yes","No")')
    fill_down(ws, 7, range(4, last + 1), f'=IF(F{{r}}="Yes",ROUND(D{{r}}*$B${rate_row},0),0)', INT)
    label(ws, last + 1, 1, "Total", bold=True)
    for c in (3, 4, 7):
        put(ws, last + 1, c, f"=SUM({col(c)}4:{col(c)}{last})", INT)
    total_rule(ws, last + 1, 1, 7)
    header_row(ws, rate_row - 1, 1, [("Bonus parameter", 1), ("Value", 1)])
    label(ws, rate_row, 1, "Commission rate")
    put(ws, rate_row, 2, 0.02, PCT)
    label(ws, rate_row + 1, 1, "Representatives meeting target")
    put(ws, rate_row + 1, 2, f'=COUNTIF(F4:F{last},"Yes")', INT)
    label(ws, rate_row + 2, 1, "Total bonus paid")
    put(ws, rate_row + 2, 2, f"=G{last + 1}", INT)
    widths(ws, 30, 13, 7)
