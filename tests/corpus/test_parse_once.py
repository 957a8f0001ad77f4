"""Each formula cell's text is parsed at most once while a corpus is built (acceptance 5).

`fortap.formula.parse_formula` is the one parse entry point; every fortap module that holds it
gets a counting wrapper, then a small corpus is built from three real workbooks in-process.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections import Counter

from fortap.formula import formula as formula_module

BOOKS = {  # the tiny real corpus of the training tests: EUSES workbooks with formulas
    "summ0602.xlsx": "train",
    "FinHrdshp_Wrksht.xlsx": "dev",
    "financial_outlook_sta#A7DE4.xlsx": "dev",
}
USERS = (  # modules that parse formulas or build the corpus (imported before patching)
    "fortap.formula",
    "fortap.formula.table_formulas",
    "fortap.corpus.facts",
    "fortap.corpus.samples",
    "fortap.corpus.tasks",
    "fortap.corpus.build",
    "fortap.encoding.formula_input",
    "fortap.encoding.serialize",
)


def count_parses(monkeypatch) -> Counter:
    """Patch every binding of `parse_formula` in loaded fortap modules; return the counts by
    (text, host sheet, sheet cell)."""
    for name in USERS:
        importlib.import_module(name)
    original = formula_module.parse_formula
    calls: Counter = Counter()

    def counted(text, host_sheet=None, cell=None, array=False, **kw):
        calls[text, host_sheet, cell] += 1
        return original(text, host_sheet, cell, array, **kw)

    for name, module in list(sys.modules.items()):
        if name.startswith("fortap") and getattr(module, "parse_formula", None) is original:
            monkeypatch.setattr(module, "parse_formula", counted)
    return calls


def test_building_a_corpus_parses_each_formula_cell_once(data_dir, tmp_path, monkeypatch):
    from fortap.corpus.build import read_corpus, run_build_corpus
    from fortap.corpus.split import book_key
    from fortap.ingest import run_ingest
    from fortap.table.io import read_jsonl

    books = [data_dir / "euses_excelint" / "subjects_xlsx" / name for name in BOOKS]
    run_ingest(books, tmp_path / "tables", progress=False)
    tables = list(read_jsonl(tmp_path / "tables" / "tables.jsonl"))
    formula_cells = sum(c.formula is not None for t in tables for row in t.cells for c in row)
    overrides = tmp_path / "splits.json"
    overrides.write_text(json.dumps({book_key(n): s for n, s in BOOKS.items()}))

    calls = count_parses(monkeypatch)
    stats = run_build_corpus([tmp_path / "tables" / "tables.jsonl"], tmp_path / "corpus",
                             progress=False, split_overrides=overrides)  # fmt: skip

    assert stats["formula_samples"] > 50 and stats["samples"]["dev"] > 10
    tokens = [x for x in read_corpus(tmp_path / "corpus", "train") if x.meta.get("formula")]
    assert any(x.targets["formula"].mode == "tokens" for x in tokens)  # formulas shown as tokens
    assert max(calls.values()) == 1  # no formula text parsed twice
    assert sum(calls.values()) == formula_cells  # and every formula cell parsed
