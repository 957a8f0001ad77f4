"""Acceptance 3: no HiTab dev or test table, by id or by content, in the pretraining data of
the encoders the QA comparison uses."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from fortap.errors import FortapError
from fortap.tasks.table_qa.leak import corpus_training_books, encoder_books, find_leaks
from fortap.tasks.table_qa.samples import HitabSet
from tests.conftest import REPO
from tests.tasks.table_qa.tiny import RAW, write_hitab


def book(path: Path, rows) -> Path:
    wb = openpyxl.Workbook()
    for row in rows:
        wb.active.append(row)
    wb.save(path)
    return path


def test_found_by_content_and_by_id(tmp_path):
    hitab = HitabSet(write_hitab(tmp_path / "hitab"))
    copy = [
        ["Population"],
        [],
        *[[t if not t.isdigit() else int(t) for t in r] for r in RAW["texts"]],
    ]
    other = [["a", "b", "c"], [1, 2, 3], [4, 5, 6], [7, 8, 9]]
    books = [book(tmp_path / "copy.xlsx", copy), book(tmp_path / "tiny.xlsx", other),
             book(tmp_path / "other.xlsx", other)]  # fmt: skip
    leaks, unread = find_leaks(books, hitab, min_rows=2)
    assert sorted((Path(x.book).name, x.how) for x in leaks) == [
        ("copy.xlsx", "content"),
        ("tiny.xlsx", "id"),
    ]
    assert not unread


def test_a_pretrained_encoder_must_list_its_books(tmp_path):
    assert encoder_books("minilm", None) == []
    with pytest.raises(FortapError, match="pretraining_books.json"):
        encoder_books("tuta", tmp_path)


@pytest.mark.slow
def test_qa_encoders_saw_no_dev_or_test_table(data_dir):
    """The encoders the QA comparison uses: MiniLM (no table pretraining), every clean
    re-pretrained encoder under models/encoders/*-clean (its pretraining_books.json) and the
    MiniLM-size pair a GPU lease pretrained (its book list kept beside this test, `gpu_pair/`:
    the encoders themselves were not kept), the
    shipped fortap-small and the shipped table-QA model's encoder (their own lists). The
    tiny-1h encoders' corpus holds dev table 45 (45.xlsx, on its training side): they fail this
    check, so the QA comparison does not use them."""
    hitab = HitabSet(data_dir / "hitab")
    encoders = REPO / "models" / "encoders"
    used = [("minilm", None)] + [
        (p.name.split("-")[0], p) for p in sorted(encoders.glob("*-clean"))
    ]
    used += [(name, Path(__file__).parent / "gpu_pair") for name in ("tuta", "fortap")]
    used += [("fortap", encoders / "fortap-small"), ("tuta", REPO / "models" / "table-qa")]
    for name, folder in used:
        books = [b for b in encoder_books(name, folder, REPO) if "hitab" in str(b)]
        leaks, unread = find_leaks(books, hitab)
        assert not leaks and not unread, (name, leaks[:3], unread)
    tiny_1h = [
        b
        for b in corpus_training_books(REPO / "models" / "fp-sheet" / "split.json", REPO)
        if "hitab" in str(b)
    ]
    leaks, _ = find_leaks(tiny_1h, hitab)
    assert {(x.table_id, x.split, Path(x.book).name) for x in leaks} == {("45", "dev", "45.xlsx")}


def test_the_shipped_model_was_fine_tuned_on_no_dev_or_test_table(data_dir):
    """models/table-qa was fine-tuned on HiTab's train split: no table of it is a dev or test
    table."""
    hitab = HitabSet(data_dir / "hitab")
    ids = {s: {x.table_id for x in hitab.samples(s)} for s in ("train", "dev", "test")}
    assert ids["train"] and not ids["train"] & (ids["dev"] | ids["test"])
    assert (
        "finetune table-qa ../shared/data/hitab" in (REPO / "models/table-qa/README.md").read_text()
    )
