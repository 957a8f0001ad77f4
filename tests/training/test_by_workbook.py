"""Evaluating workbook by workbook gives the same metrics as one evaluation (tiny real corpus)."""

from __future__ import annotations

import pytest

from fortap.encoding.collate import collate
from fortap.metrics.bootstrap import Tally
from fortap.training.by_workbook import books_of, evaluate_by_book, tallies
from fortap.training.logs import evaluate
from fortap.training.run_config import load_config
from tests.training.test_checkpoint import CORPUS


def test_evaluating_by_workbook_gives_the_overall_metrics(tiny_corpus):
    from fortap.training.pretrain import setup_pretrain

    cfg = load_config("tiny", [*CORPUS, "data.eval_samples=0"])
    setup = setup_pretrain(cfg, tiny_corpus, "random")
    collators = setup.model.target_collators()
    overall, per_book = evaluate_by_book(
        setup.model, setup.eval_examples, lambda xs: collate(xs, target_collators=collators), 3
    )
    assert sorted(per_book) == sorted(books_of(setup.eval_examples)) and len(per_book) == 2
    whole = evaluate(setup.model, setup.eval_batches)
    for key, value in whole.items():
        kind = key.split("/")[1]
        if kind.startswith(("acc", "n", "tp", "fp", "fn", "f1", "tag_acc")):
            assert overall[key] == pytest.approx(value, abs=1e-9), key
    for name in ("nrp", "ncp", "formula_mlm"):
        counted = sum(t.n for t in tallies(per_book, name).values())
        assert counted == overall[f"eval/n/{name}"] > 0
        hits = sum(t.hits for t in tallies(per_book, name).values())
        assert hits / counted == pytest.approx(overall[f"eval/acc/{name}"])


def test_tallies_read_hits_and_counts_per_workbook():
    per_book = {
        "a": {"acc/nrp": 0.5, "n/nrp": 4.0, "acc/ncp": 1.0, "n/ncp": 2.0},
        "b": {"acc/nrp": 0.0, "n/nrp": 0.0, "acc_op/formula_mlm": 0.25, "n_op/formula_mlm": 8.0},
    }
    assert tallies(per_book, "nrp") == {"a": Tally(2.0, 4.0)}  # b has no NRP targets
    assert tallies(per_book, "formula_mlm", "acc_op") == {"b": Tally(2.0, 8.0)}
