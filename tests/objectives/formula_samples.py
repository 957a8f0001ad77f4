"""Corpus samples of the literal sales table in `tests/corpus/formula_tables.py`, for the
ForTaP objectives' tests."""

from __future__ import annotations

from fortap.corpus.facts import FactsConfig, formula_facts, kept_formulas
from fortap.corpus.samples import formula_sample
from fortap.encoding.serialize import SerializeConfig

from ..corpus.formula_tables import sales_table


def formula_example(tokenizer, rc: tuple[int, int], mode: str):
    """The corpus sample of formula cell `rc` shown in `mode`."""
    table = sales_table()
    kept, _ = kept_formulas(table, FactsConfig())
    facts = formula_facts(table, rc, kept[rc], FactsConfig())
    return formula_sample(table, facts, tokenizer, SerializeConfig(), mode)


def all_examples(tokenizer, modes=("tokens", "tag", "value")):
    """Every kept formula of the table in every mode (18 samples)."""
    cells = [(1, 4), (2, 4), (3, 1), (3, 2), (3, 3), (3, 4)]
    return [formula_example(tokenizer, rc, mode) for rc in cells for mode in modes]
