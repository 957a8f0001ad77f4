"""`helpers.derived_lines` on literal sheets: a typed rate column, a typed difference and a
typed total are found with the formula that computes them; data columns are not."""

from __future__ import annotations

from fortap.sheet.model import Cell, Sheet
from helpers.derived_lines import relations


def sheet_of(rows: list[list[float | None]]) -> Sheet:
    cells = {(r, c): Cell(value=float(v), kind="number")
             for r, row in enumerate(rows) for c, v in enumerate(row) if v is not None}  # fmt: skip
    return Sheet("S", "b.xlsx", len(rows), max(map(len, rows)), cells)


def test_a_rate_a_difference_and_a_total_are_found():
    # A population, B births, C deaths, D empty, E = B - C, F = B / A * 1000 (one decimal),
    # G and H parts, I = G + H
    rows = []
    for i in range(8):
        pop, births, deaths = 40000.0 + 1000 * i, 1300.0 + 17 * i * i, 900.0 + 3 * i
        g, h = 10.0 + i * i, 7.0 + 2 * i
        rate = round(births / pop * 1000, 1)
        rows.append([pop, births, deaths, None, births - deaths, rate, g, h, g + h])
    s = sheet_of(rows)
    found = relations(s, set(s.cells))
    e, f, i = found[(3, 4)], found[(3, 5)], found[(0, 8)]
    assert (e.op, e.a, e.b, e.holds) == ("-", 1, 2, 8) and e.fix((3, 4)) == "=B4-C4"
    assert (f.op, f.scale, f.digits) == ("/", 1000.0, 1) and f.fix((3, 5)) == "=ROUND(B4/A4*1000,1)"
    assert i.fix((0, 8)) in ("=G1+H1", "=SUM(G1:H1)")
    assert not any((r, k) in found for r in range(8) for k in (0, 1, 2, 6, 7))


def test_chance_and_trivial_relations_are_not_taken():
    # a column of zeros added to another is a copy, not a sum; too few rows say nothing
    rows = [[1.0 + i * i, 0.0, 1.0 + i * i] for i in range(8)]
    s = sheet_of(rows)
    assert relations(s, set(s.cells)) == {}
    short = sheet_of([[1.0, 2.0, 3.0], [2.0, 2.0, 4.0], [5.0, 1.0, 6.0]])
    assert relations(short, set(short.cells)) == {}


def test_a_total_before_its_parts_is_left_alone():
    # A total, B male, C female: A = SUM(B:C) and C = A - B both hold, and either may be the
    # typed one (Births, Deaths, Increase read the same way), so neither is taken
    pairs = ((10.0, 7.0), (12.0, 9.0), (15.0, 4.0), (8.0, 8.0), (20.0, 1.0), (3.0, 11.0))
    s = sheet_of([[m + f, m, f] for m, f in pairs])
    assert relations(s, set(s.cells)) == {}


def test_a_few_misses_early_do_not_hide_a_relation():
    # C = A * B everywhere but in 3 of the first rows (a typo each): 57 of 60 hold (0.95)
    rows = [[1.0 + i, 2.0 + (i % 7), (1.0 + i) * (2.0 + (i % 7))] for i in range(60)]
    for i in (0, 2, 4):
        rows[i][2] += 1.0
    s = sheet_of(rows)
    found = relations(s, set(s.cells))
    assert found[(10, 2)].op == "*" and found[(10, 2)].holds == 57
