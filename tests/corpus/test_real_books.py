"""Real EUSES workbooks: every sample's formula facts agree with its tokens and its table."""

from __future__ import annotations

import pytest

from fortap.corpus.facts import FactsConfig, formula_facts, kept_formulas
from fortap.corpus.samples import FORMULA_KEY, formula_sample
from fortap.encoding.serialize import SerializeConfig
from fortap.sheet import read_workbook
from fortap.table.detect import detect_tables
from fortap.text.tokenizer import FORMULA_TOKEN_BASE

BOOKS = ["summ0602.xlsx", "FinHrdshp_Wrksht.xlsx", "financial_outlook_sta#A7DE4.xlsx"]


@pytest.mark.parametrize("name", BOOKS)
def test_facts_agree_with_the_sample(data_dir, tokenizer, name):
    book = read_workbook(data_dir / "euses_excelint" / "subjects_xlsx" / name)
    samples = 0
    for sheet in book.sheets:
        for table in detect_tables(sheet):
            kept, _ = kept_formulas(table, FactsConfig())
            for rc, formula in sorted(kept.items()):
                facts = formula_facts(table, rc, formula, FactsConfig())
                ex = formula_sample(
                    table, facts, tokenizer, SerializeConfig(max_seq_len=224), "tokens"
                )
                if ex is None:
                    continue
                samples += 1
                check(ex, table)
    assert samples > 0


def check(ex, table):
    facts = ex.targets[FORMULA_KEY]
    n = len(ex.cell_coords)
    at = {k: tuple(rc) for k, rc in enumerate(ex.cell_coords, start=1)}
    assert at[facts.cell] and table.cell(*at[facts.cell]).formula == ex.meta["formula"]
    assert not set(facts.positives) & set(facts.negatives)
    assert facts.formula_header not in (*facts.positives, *facts.negatives)
    for cell in (*facts.positives, *facts.negatives, *facts.referenced):
        assert 1 <= cell <= n
    for label, cells in facts.ncp:
        assert 0 <= label < 17 and all(table.cell(*at[c]).kind == "number" for c in cells)
    if facts.mode != "tokens":
        return
    sep = ex.cell_ids.index(facts.cell)
    for offset, kind, vocab, ref in facts.tokens:
        assert ex.token_ids[sep + offset] == FORMULA_TOKEN_BASE + vocab
        if kind == "ref" and ref:
            assert (ex.rows[sep + offset], ex.cols[sep + offset]) == at[ref]
