"""Sample workbooks about spending: an expense report with a category summary, a loan schedule.

Each recipe takes an explicit `random.Random` and returns an openpyxl `Workbook`;
`fortap.demo.samples` computes the cached values of their formulas.
"""

from __future__ import annotations

import datetime as dt
import random

from openpyxl import Workbook

from fortap.demo.layout import (
    DATE,
    INT,
    MONEY,
    PCT,
    col,
    fill_down,
    fill_right,
    header_row,
    label,
    note,
    put,
    put_row,
    title,
    total_rule,
    widths,
)


def expenses(rng: random.Random) -> Workbook:
    """An expense report: dated lines, an approval rule, and a summary table built with SUMIF."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Expense Report"
    title(ws, 1, "Expense Report")
    note(ws, 2, "Employee: Jordan Smith    Department: Marketing")
    note(ws, 3, "Trip: Trade fair, Chicago, 4-8 March 2024")
    header_row(
        ws,
        5,
        1,
        [(t, 1) for t in ("Date", "Description", "Category", "Amount", "Reimbursable", "Approved")],
    )
    lines = [
        ("Travel", "Flight"),
        ("Travel", "Taxi from airport"),
        ("Lodging", "Hotel, 4 nights"),
        ("Meals", "Dinner with client"),
        ("Meals", "Lunch"),
        ("Other", "Conference fee"),
        ("Meals", "Breakfast"),
        ("Travel", "Train"),
        ("Other", "Printing"),
        ("Meals", "Team dinner"),
        ("Other", "Minibar"),
        ("Travel", "Taxi to airport"),
    ]
    first = 6
    for i, (category, text) in enumerate(lines):
        r = first + i
        put(ws, r, 1, dt.date(2024, 3, 4) + dt.timedelta(days=i * 4 // len(lines)), DATE)
        put_row(ws, r, 2, [text, category])
        put(ws, r, 4, round(rng.uniform(8, 120 if category != "Lodging" else 900), 2), MONEY)
        put(ws, r, 5, "No" if text == "Minibar" else "Yes")
        put(ws, r, 6, f'=IF(E{r}="Yes",D{r},0)', MONEY)
    last = first + len(lines) - 1
    label(ws, last + 1, 1, "Total", bold=True)
    for c in (4, 6):
        put(ws, last + 1, c, f"=SUM({col(c)}{first}:{col(c)}{last})", MONEY)
    total_rule(ws, last + 1, 1, 6)

    top = last + 4
    title(ws, top, "Summary by category", size=12)
    header_row(ws, top + 1, 1, [("Category", 1), ("Amount", 1), ("Share", 1)])
    cats = ("Travel", "Lodging", "Meals", "Other")
    total = top + 2 + len(cats)
    for i, cat in enumerate(cats):
        r = top + 2 + i
        label(ws, r, 1, cat)
        put(ws, r, 2, f"=SUMIF($C${first}:$C${last},A{r},$D${first}:$D${last})", MONEY)
        put(ws, r, 3, f"=B{r}/$B${total}", PCT)
    label(ws, total, 1, "Total", bold=True)
    put(ws, total, 2, f"=SUM(B{top + 2}:B{total - 1})", MONEY)
    put(ws, total, 3, f"=B{total}/$B${total}", PCT)
    total_rule(ws, total, 1, 3)
    note(ws, total + 2, "Meals above the daily allowance of $75 need a manager's approval.")
    widths(ws, 12, 16, 6)
    return wb


def loan(rng: random.Random) -> Workbook:
    """A loan schedule: an input block, PMT, and running balances dragged down 24 rows."""
    wb = Workbook()
    ws = wb.active
    ws.title = "Amortization"
    title(ws, 1, "Car Loan - Amortization Schedule")
    inputs = [
        ("Loan amount", rng.randrange(12_000, 40_000, 500), MONEY),
        ("Annual interest rate", round(rng.uniform(0.03, 0.09), 4), "0.00%"),
        ("Term (months)", 24, INT),
    ]
    for i, (name, value, fmt) in enumerate(inputs):
        label(ws, 3 + i, 1, name)
        put(ws, 3 + i, 2, value, fmt)
    label(ws, 6, 1, "Monthly payment", bold=True)
    put(ws, 6, 2, "=ROUND(PMT(B4/12,B5,-B3),2)", MONEY, bold=True)
    header_row(
        ws,
        9,
        1,
        [
            (t, 1)
            for t in (
                "Month",
                "Opening balance",
                "Payment",
                "Interest",
                "Principal",
                "Closing balance",
            )
        ],
    )
    first, last = 10, 33
    put(ws, first, 1, 1)
    put(ws, first, 2, "=B3", MONEY)
    for r in range(first + 1, last + 1):
        put(ws, r, 1, f"=A{r - 1}+1")
        put(ws, r, 2, f"=F{r - 1}", MONEY)
    fill_down(ws, 3, range(first, last + 1), "=$B$6", MONEY)
    fill_down(ws, 4, range(first, last + 1), "=ROUND(B{r}*$B$4/12,2)", MONEY)
    fill_down(ws, 5, range(first, last + 1), "=C{r}-D{r}", MONEY)
    fill_down(ws, 6, range(first, last + 1), "=B{r}-E{r}", MONEY)
    label(ws, last + 1, 1, "Total", bold=True)
    fill_right(ws, last + 1, range(3, 6), f"=SUM({{c}}{first}:{{c}}{last})", MONEY)
    total_rule(ws, last + 1, 1, 6)
    note(
        ws,
        last + 3,
        "The last closing balance differs from zero by rounding of the monthly interest.",
    )
    widths(ws, 22, 15, 6)
    return wb
