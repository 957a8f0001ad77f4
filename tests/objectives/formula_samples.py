"""Corpus samples of a literal table with formulas, for the ForTaP objectives' tests.

|   | 0 (A) | 1 (B)   | 2 (C)       | 3 (D)   | 4 (E)       |
|---|-------|---------|-------------|---------|-------------|
| 0 | item  | 2019    | 2020        | 2021    | total       |
| 1 | north | 10      | 20          | 5       | =B2+C2      |
| 2 | south | 30      | 40          | 6       | =SUM(B3:D3) |
| 3 | total | =B2+B3  | =SUM(C2:C3) | =D2-D3  | =E2+E3      |
"""

from __future__ import annotations

from fortap.corpus.facts import FactsConfig, formula_facts, kept_formulas
from fortap.corpus.samples import formula_sample
from fortap.encoding.serialize import SerializeConfig
from fortap.sheet.model import Cell, Region
from fortap.table.model import HeaderNode, Table


def _text(value: str) -> Cell:
    return Cell(value, "text")


def _number(value: float, formula: str | None = None) -> Cell:
    return Cell(value, "number", formula)


def formula_table() -> Table:
    return Table(
        book="sales.xlsx",
        sheet="Sheet1",
        region=Region(0, 0, 3, 4),
        cells=(
            (_text("item"), _number(2019.0), _number(2020.0), _number(2021.0), _text("total")),
            (_text("north"), _number(10.0), _number(20.0), _number(5.0), _number(30.0, "=B2+C2")),
            (
                _text("south"),
                _number(30.0),
                _number(40.0),
                _number(6.0),
                _number(76.0, "=SUM(B3:D3)"),
            ),
            (
                _text("total"),
                _number(40.0, "=B2+B3"),
                _number(60.0, "=SUM(C2:C3)"),
                _number(-1.0, "=D2-D3"),
                _number(106.0, "=E2+E3"),
            ),
        ),  # fmt: skip
        top_header_rows=1,
        left_header_cols=1,
        top_root=HeaderNode(-1, -1, tuple(HeaderNode(0, c) for c in range(1, 5))),
        left_root=HeaderNode(-1, -1, tuple(HeaderNode(r, 0) for r in range(1, 4))),
    )


def formula_example(tokenizer, rc: tuple[int, int], mode: str):
    """The corpus sample of formula cell `rc` shown in `mode`."""
    table = formula_table()
    kept, _ = kept_formulas(table, FactsConfig())
    facts = formula_facts(table, rc, kept[rc], FactsConfig())
    return formula_sample(table, facts, tokenizer, SerializeConfig(), mode)


def all_examples(tokenizer, modes=("tokens", "tag", "value")):
    """Every kept formula of the table in every mode (18 samples)."""
    cells = [(1, 4), (2, 4), (3, 1), (3, 2), (3, 3), (3, 4)]
    return [formula_example(tokenizer, rc, mode) for rc in cells for mode in modes]
