"""Fixtures for the training loop: a tiny pretraining setup over HiTab tables and a tiny corpus."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def hitab_files(data_dir):
    files = sorted((data_dir / "hitab" / "tables" / "raw").glob("*.json"))
    assert len(files) > 100
    return files[:10]


CORPUS_BOOKS = {  # EUSES workbooks with formulas -> the split they are put in
    "summ0602.xlsx": "train",
    "FinHrdshp_Wrksht.xlsx": "dev",
    "financial_outlook_sta#A7DE4.xlsx": "dev",
}


@pytest.fixture(scope="session")
def tiny_corpus(data_dir, tmp_path_factory):
    """A corpus built from three real workbooks (about two seconds): ~80 train samples from
    one book, the other two as the dev split."""
    import json

    from fortap.corpus.build import run_build_corpus
    from fortap.corpus.split import book_key
    from fortap.ingest import run_ingest

    root = tmp_path_factory.mktemp("corpus")
    books = [data_dir / "euses_excelint" / "subjects_xlsx" / name for name in CORPUS_BOOKS]
    run_ingest(books, root / "tables", progress=False)
    overrides = root / "splits.json"
    overrides.write_text(json.dumps({book_key(n): s for n, s in CORPUS_BOOKS.items()}))
    stats = run_build_corpus(
        [root / "tables" / "tables.jsonl"], root / "corpus", progress=False,
        split_overrides=overrides,
    )  # fmt: skip
    assert stats["samples"]["train"] > 50 and stats["samples"]["dev"] > 10
    return root / "corpus"
