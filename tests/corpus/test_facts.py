"""Which formulas are kept, and the facts of each (NRP headers, NCP groups), on a literal table."""

from __future__ import annotations

from dataclasses import replace

from fortap.corpus.facts import FactsConfig, formula_facts, kept_formulas
from fortap.corpus.headers import header_of, orientation

from .formula_tables import number, sales_table


def facts_of(table, rc):
    kept, _ = kept_formulas(table, FactsConfig())
    return formula_facts(table, rc, kept[rc], FactsConfig())


def test_every_formula_of_the_sales_table_is_kept():
    kept, verdicts = kept_formulas(sales_table(), FactsConfig())
    assert sorted(kept) == [(1, 4), (2, 4), (3, 1), (3, 2), (3, 3), (3, 4)]
    assert verdicts == {"keep": 6}


def test_discards_are_counted_by_reason():
    table = sales_table()
    cells = [list(row) for row in table.cells]
    cells[1][4] = number(30.0, "=B2+Z9")  # outside the table
    cells[2][4] = number(1.0, "=Sheet2!B3")  # another sheet
    cells[3][1] = number(1.0, "=SUM(B2:B3")  # does not parse
    cells[3][2] = number(1.0, "=1+2")  # no reference
    table = replace(table, cells=tuple(tuple(r) for r in cells))
    kept, verdicts = kept_formulas(table, FactsConfig())
    assert sorted(kept) == [(3, 3), (3, 4)]
    assert verdicts == {
        "keep": 2,
        "outside_table": 1,
        "cross_sheet": 1,
        "unparsable": 1,
        "no_reference": 1,
    }


def test_too_long_and_repeated_formulas_are_discarded():
    kept, verdicts = kept_formulas(sales_table(), FactsConfig(max_formula_tokens=3))
    assert sorted(kept) == [(1, 4), (3, 1), (3, 3), (3, 4)]  # SUM(x:y) has 4 tokens
    assert verdicts["too_long"] == 2
    kept, verdicts = kept_formulas(sales_table(), FactsConfig(occurrence_limit=1))
    # =B2+B3, =E2+E3 are one R1C1 formula (R[-2]C+R[-1]C) in row 3: only the first stays
    assert (3, 4) not in kept and (3, 1) in kept and verdicts["repeated"] >= 1


def test_headers_and_orientation():
    table = sales_table()
    assert header_of(table, (2, 3), "top") == (0, 3)
    assert header_of(table, (2, 3), "left") == (2, 0)
    assert header_of(table, (0, 3), "top") is None  # a header row cell has nothing above
    assert orientation((1, 4), [(1, 1), (1, 2)]) == "top"
    assert orientation((3, 1), [(1, 1), (2, 1)]) == "left"


def test_row_formula_pairs_top_headers():
    facts = facts_of(sales_table(), (1, 4))  # E2 =B2+C2
    assert facts.referenced == ((1, 1), (1, 2))
    assert facts.side == "top"
    assert facts.formula_header == (0, 4)  # "total"
    assert facts.positives == ((0, 1), (0, 2))  # 2019, 2020
    assert facts.negatives == ((0, 3),)  # 2021 is on the row but not referenced
    assert (facts.row_header, facts.col_header) == ((1, 0), (0, 4))
    assert facts.ncp == ((1, ((1, 1), (1, 2))),)  # "+" is NCP class 1


def test_range_formula_expands_references_and_keeps_range_ends_for_ncp():
    facts = facts_of(sales_table(), (2, 4))  # E3 =SUM(B3:D3)
    assert facts.referenced == ((2, 1), (2, 2), (2, 3))
    assert facts.positives == ((0, 1), (0, 2), (0, 3))
    assert facts.negatives == ()
    assert facts.ncp == ((13, ((2, 1), (2, 3))),)  # SUM, the two ends of the range


def test_column_formula_pairs_left_headers():
    facts = facts_of(sales_table(), (3, 3))  # D4 =D2-D3
    assert facts.side == "left"
    assert facts.formula_header == (3, 0)  # "total"
    assert facts.positives == ((1, 0), (2, 0))  # north, south
    assert facts.ncp == ((2, ((1, 3), (2, 3))),)  # "-"
