"""Sample workbooks that keep records: a grade book, an inventory, population figures, energy use.

Each recipe takes an explicit `random.Random` and returns an openpyxl `Workbook`;
`fortap.demo.samples` computes the cached values of their formulas.
"""

from __future__ import annotations

import random

from openpyxl import Workbook

from fortap.demo.layout import (
    INT,
    MONEY,
    ONE_DP,
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

STUDENTS = (
    "Avery",
    "Blake",
    "Casey",
    "Devon",
    "Emery",
    "Finley",
    "Gray",
    "Harper",
    "Indigo",
    "Jules",
    "Kai",
    "Logan",
)
STOCK = {
    "Office supplies": (
        ("Copy paper, A4", "OS-101"),
        ("Ballpoint pens, box", "OS-114"),
        ("Stapler", "OS-130"),
        ("Sticky notes", "OS-152"),
    ),
    "Electronics": (
        ("USB-C cable", "EL-210"),
        ("Wireless mouse", "EL-224"),
        ("Monitor 24in", "EL-260"),
    ),
    "Furniture": (("Desk chair", "FU-301"), ("Standing desk", "FU-315"), ("Bookshelf", "FU-340")),
}
STATES = {
    "Northeast": (
        ("Maine", 30_843),
        ("Vermont", 9_217),
        ("New York", 47_126),
        ("Pennsylvania", 44_743),
    ),
    "Midwest": (("Ohio", 40_861), ("Iowa", 55_857), ("Kansas", 81_759), ("Michigan", 56_539)),
    "South": (("Texas", 261_232), ("Florida", 53_625), ("Georgia", 57_513), ("Virginia", 39_490)),
    "West": (("California", 155_779), ("Oregon", 95_988), ("Nevada", 109_781), ("Utah", 82_170)),
}
BUILDINGS = {
    "North campus": ("Library", "Science Hall", "Gymnasium"),
    "South campus": ("Residence A", "Residence B", "Dining Hall", "Administration"),
}
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def gradebook(rng: random.Random) -> Workbook:
    """Scores under Homework/Exams bands, a weighted score from a weights table, nested IFs."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Grades"
    title(ws, 1, "BIO 101 - Fall 2024 Grade Book")
    note(ws, 2, "Instructor: Dr. R. Lee; scores out of 100")
    header(ws, 4, 1, "Student", rows=2)
    header_row(ws, 4, 2, [("Homework", 4), ("Exams", 2)])
    header(ws, 4, 8, "Weighted score", rows=2)
    header(ws, 4, 9, "Letter grade", rows=2)
    header_row(ws, 5, 2, [(t, 1) for t in ("HW1", "HW2", "HW3", "HW4", "Midterm", "Final")])
    first, last = 6, 5 + len(STUDENTS)
    weights = last + 7
    for i, name in enumerate(STUDENTS):
        skill = rng.uniform(55, 97)
        label(ws, first + i, 1, name)
        put_row(ws, first + i, 2, [min(100, round(rng.gauss(skill, 6))) for _ in range(6)], INT)
    fill_down(
        ws,
        8,
        range(first, last + 1),
        f"=ROUND(AVERAGE(B{{r}}:E{{r}})*$B${weights}+F{{r}}*$B${weights + 1}"
        f"+G{{r}}*$B${weights + 2},1)",
        ONE_DP,
    )
    fill_down(
        ws,
        9,
        range(first, last + 1),
        '=IF(H{r}>=90,"A",IF(H{r}>=80,"B",IF(H{r}>=70,"C",IF(H{r}>=60,"D","F"))))',
    )
    for k, (name, fn) in enumerate(
        (("Class average", "AVERAGE"), ("Highest", "MAX"), ("Lowest", "MIN"))
    ):
        label(ws, last + 1 + k, 1, name, bold=True)
        fill_right(
            ws, last + 1 + k, range(2, 9), f"=ROUND({fn}({{c}}{first}:{{c}}{last}),1)", ONE_DP
        )
    total_rule(ws, last + 1, 1, 9)
    header_row(ws, weights - 1, 1, [("Component", 1), ("Weight", 1)])
    for k, (name, w) in enumerate((("Homework", 0.4), ("Midterm", 0.25), ("Final", 0.35))):
        label(ws, weights + k, 1, name)
        put(ws, weights + k, 2, w, PCT)
    label(ws, weights + 3, 1, "Total", bold=True)
    put(ws, weights + 3, 2, f"=SUM(B{weights}:B{weights + 2})", PCT, bold=True)
    note(ws, weights + 5, "Letter grades: A from 90, B from 80, C from 70, D from 60.")
    widths(ws, 16, 10, 9)

    dist = wb.create_sheet("Distribution")
    title(dist, 1, "Grade distribution", size=12)
    header_row(dist, 3, 1, [("Grade", 1), ("Students", 1), ("Share", 1)])
    for k, grade in enumerate("ABCDF"):
        r = 4 + k
        label(dist, r, 1, grade)
        put(dist, r, 2, f"=COUNTIF(Grades!$I${first}:$I${last},A{r})", INT)
        put(dist, r, 3, f"=B{r}/$B$9", PCT)
    label(dist, 9, 1, "Total", bold=True)
    put(dist, 9, 2, "=SUM(B4:B8)", INT)
    put(dist, 9, 3, "=B9/$B$9", PCT)
    total_rule(dist, 9, 1, 3)
    return wb


def inventory(rng: random.Random) -> Workbook:
    """Stock by category: space-indented items, subtotals, products, shares, a reorder flag."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Stock"
    title(ws, 1, "Warehouse Inventory - 30 June 2024")
    note(ws, 2, "Valued at unit cost (USD)")
    header(ws, 4, 1, "Item", rows=2)
    header(ws, 4, 2, "SKU", rows=2)
    header_row(ws, 4, 3, [("Stock (units)", 2), ("Value", 2)])
    header(ws, 4, 7, "Share of value", rows=2)
    header(ws, 4, 8, "Reorder", rows=2)
    header_row(ws, 5, 3, [(t, 1) for t in ("On hand", "Reorder level", "Unit cost", "Total")])
    n_rows = sum(len(items) + 2 for items in STOCK.values())
    grand = 6 + n_rows
    row, subtotals = 6, []
    for group, items in STOCK.items():
        label(ws, row, 1, group, bold=True)
        first = row = row + 1
        for name, sku in items:
            label(ws, row, 1, name, level=1, spaces=True)
            put(ws, row, 2, sku)
            put_row(ws, row, 3, [rng.randrange(0, 400), rng.randrange(10, 80)], INT)
            put(ws, row, 5, round(rng.uniform(1.5, 450), 2), MONEY)
            put(ws, row, 6, f"=C{row}*E{row}", MONEY)
            put(ws, row, 7, f"=F{row}/$F${grand}", PCT)
            put(ws, row, 8, f'=IF(C{row}<D{row},"Yes","No")')
            row += 1
        label(ws, row, 1, "Subtotal", level=1, spaces=True)
        put(ws, row, 6, f"=SUM(F{first}:F{row - 1})", MONEY, bold=True)
        put(ws, row, 7, f"=F{row}/$F${grand}", PCT)
        subtotals.append(row)
        row += 1
    assert row == grand, "inventory layout drifted"
    label(ws, grand, 1, "Total inventory", bold=True)
    put(ws, grand, 6, "=" + "+".join(f"F{r}" for r in subtotals), MONEY)
    put(ws, grand, 7, f"=F{grand}/$F${grand}", PCT)
    total_rule(ws, grand, 1, 8)
    note(ws, grand + 2, "Reorder = Yes when units on hand are below the reorder level.")
    widths(ws, 26, 12, 8)

    sup = wb.create_sheet("Suppliers")
    title(sup, 1, "Suppliers", size=12)
    header_row(
        sup, 3, 1, [(t, 1) for t in ("Supplier", "Category", "Lead time (days)", "On-time rate")]
    )
    names = ("Acme Paper", "Brightline", "Cobalt Tech", "Deskworks", "Evergreen Office")
    for i, name in enumerate(names):
        put_row(sup, 4 + i, 1, [name, rng.choice(list(STOCK))])
        put(sup, 4 + i, 3, rng.randrange(2, 30), INT)
        put(sup, 4 + i, 4, round(rng.uniform(0.75, 0.99), 2), PCT)
    end = 3 + len(names)
    title(sup, end + 3, "Lead time summary", size=12)
    header_row(sup, end + 4, 1, [("Measure", 1), ("Days", 1)])
    for k, (name, formula) in enumerate(
        (
            ("Average", f"=ROUND(AVERAGE(C4:C{end}),1)"),
            ("Longest", f"=MAX(C4:C{end})"),
            ("Shortest", f"=MIN(C4:C{end})"),
        )
    ):
        label(sup, end + 5 + k, 1, name)
        put(sup, end + 5 + k, 2, formula, ONE_DP)
    widths(sup, 20, 16, 4)
    return wb


def population(rng: random.Random) -> Workbook:
    """A statistical-abstract table: region rows summing states, changes, densities, footnotes."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Table 12"
    title(ws, 1, "Table 12. Resident Population by Region and State: 2010 and 2020")
    note(ws, 2, "[In thousands, except as indicated. As of April 1]")
    header(ws, 4, 1, "Region and state", rows=2)
    header_row(ws, 4, 2, [("Population", 2), ("Change, 2010-2020", 2)])
    header(ws, 4, 6, "Land area (sq. mi.)", rows=2)
    header_row(ws, 4, 7, [("Persons per sq. mile 1", 2)])
    header_row(ws, 5, 2, [(t, 1) for t in (2010, 2020, "Number", "Percent")])
    header_row(ws, 5, 7, [(2010, 1), (2020, 1)])
    label(ws, 6, 1, "United States", bold=True)
    row, regions = 7, []
    for region, states in STATES.items():
        label(ws, row, 1, region, bold=True)
        fill_right(ws, row, (2, 3, 6), f"=SUM({{c}}{row + 1}:{{c}}{row + len(states)})", INT)
        regions.append(row)
        for i, (state, area) in enumerate(states, start=1):
            label(ws, row + i, 1, state, level=1, spaces=True)
            p10 = max(300, round(area * rng.uniform(15, 420) / 1000))
            put_row(ws, row + i, 2, [p10, round(p10 * rng.uniform(0.97, 1.16))], INT)
            put(ws, row + i, 6, area, INT)
        row += len(states) + 1
    fill_right(ws, 6, (2, 3, 6), "=" + "+".join(f"{{c}}{r}" for r in regions), INT)
    fill_down(ws, 4, range(6, row), "=C{r}-B{r}", INT)
    fill_down(ws, 5, range(6, row), "=ROUND(D{r}/B{r}*100,1)", ONE_DP)
    fill_down(ws, 7, range(6, row), "=ROUND(B{r}*1000/$F{r},1)", ONE_DP)
    fill_down(ws, 8, range(6, row), "=ROUND(C{r}*1000/$F{r},1)", ONE_DP)
    note(ws, row + 1, "1 Persons per square mile of land area.")
    note(
        ws,
        row + 2,
        "Source: U.S. Census Bureau, decennial censuses; figures here are illustrative.",
    )
    widths(ws, 24, 11, 8)
    return wb


def energy(rng: random.Random) -> Workbook:
    """Three header levels (year, half, month), campus groups, half-year and yearly totals."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Electricity"
    title(ws, 1, "Campus Electricity Use, 2024 (MWh)")
    header(ws, 3, 1, "Building", rows=3)
    header_row(ws, 3, 2, [("2024", 14)])
    header(ws, 3, 16, "Year total", rows=3)
    header_row(ws, 4, 2, [("First half", 7), ("Second half", 7)])
    header_row(ws, 5, 2, [(t, 1) for t in (*MONTHS[:6], "H1", *MONTHS[6:], "H2")])
    months = [*range(2, 8), *range(9, 15)]
    row, groups = 6, []
    for campus, buildings in BUILDINGS.items():
        label(ws, row, 1, campus, bold=True)
        fill_right(ws, row, months, f"=SUM({{c}}{row + 1}:{{c}}{row + len(buildings)})", ONE_DP)
        groups.append(row)
        for i, name in enumerate(buildings, start=1):
            label(ws, row + i, 1, name, level=1)
            base = rng.uniform(40, 260)
            use = [
                round(base * (1.25 if m in (0, 1, 6, 7, 11) else 1.0) * rng.uniform(0.9, 1.1), 1)
                for m in range(12)
            ]
            put_row(ws, row + i, 2, use[:6], ONE_DP)
            put_row(ws, row + i, 9, use[6:], ONE_DP)
        row += len(buildings) + 1
    label(ws, row, 1, "Total", bold=True)
    fill_right(ws, row, months, "=" + "+".join(f"{{c}}{r}" for r in groups), ONE_DP)
    spans = ",".join(
        f"{{c}}{g + 1}:{{c}}{g + len(b)}" for g, b in zip(groups, BUILDINGS.values(), strict=True)
    )
    label(ws, row + 1, 1, "Average per building", bold=True)
    fill_right(ws, row + 1, months, f"=ROUND(AVERAGE({spans}),1)", ONE_DP)
    fill_down(ws, 8, range(6, row + 2), "=SUM(B{r}:G{r})", ONE_DP)
    fill_down(ws, 15, range(6, row + 2), "=SUM(I{r}:N{r})", ONE_DP)
    fill_down(ws, 16, range(6, row + 2), "=H{r}+O{r}", ONE_DP)
    total_rule(ws, row, 1, 16)
    note(ws, row + 3, "Meter readings; December values are estimates.")
    widths(ws, 22, 8, 16)
    ws.column_dimensions[col(16)].width = 11
    return wb
