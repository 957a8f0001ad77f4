"""Question kinds, each wrong answer's cause on the tiny table, and the breakdown of a tiny
model trained here (and `bench/table_qa_errors.py` writing the same rows)."""

from __future__ import annotations

import json

import pytest

from bench import table_qa_errors
from fortap.encoding.serialize import SerializeConfig
from fortap.tasks.run_config import load_run_config
from fortap.tasks.table_qa.breakdown import CAUSES, breakdown, cause_of, loosely_equal
from fortap.tasks.table_qa.checkpoint import load_qa_model
from fortap.tasks.table_qa.config import QARunConfig
from fortap.tasks.table_qa.kinds import question_kind
from fortap.tasks.table_qa.operations import execute
from fortap.tasks.table_qa.predict import Prediction, predict
from fortap.tasks.table_qa.questions import QuestionBuilder
from fortap.tasks.table_qa.run import run_finetune
from fortap.tasks.table_qa.samples import HitabSet, sample_from_json
from fortap.text.tokenizer import Tokenizer
from tests.tasks.table_qa.tiny import QUESTIONS, question, write_hitab

SETTINGS = ["encoder.name=random", "training.steps=4", "training.save_every=4",
            "training.dev_checks=1", "training.progress=false", "evaluation.max_dev=6",
            "evaluation.splits=[dev]"]  # fmt: skip


@pytest.mark.parametrize(
    ("aggregation", "headers", "kind"),
    [(["none"], [(0, 2)], "cell selection, 0-1 headers"),
     (["none"], [(0, 2), (2, 0)], "cell selection, 2 headers"),
     (["none"], [(0, 1), (0, 2), (2, 0)], "cell selection, 3 headers"),
     (["none"], [(0, 1), (0, 2), (2, 0), (3, 0)], "cell selection, 4+ headers"),
     (["sum"], [], "arithmetic"), (["div"], [], "arithmetic"), (["sum", "div"], [], "arithmetic"),
     (["range"], [], "arithmetic"), (["argmax"], [], "superlative"), (["min"], [], "superlative"),
     (["topk-argmax"], [], "superlative"), (["pair-argmax"], [], "comparative"),
     (["less_than"], [], "comparative"), (["sum", "pair-argmin"], [], "comparative")],
)  # fmt: skip
def test_question_kind(aggregation, headers, kind):
    sample = sample_from_json(question("k", "?", [1.0], aggregation, [(2, 2)], headers))
    assert question_kind(sample) == kind


def test_loosely_equal():
    assert loosely_equal([0.42], [0.416667])  # within 1 %
    assert loosely_equal([41.6667], [0.416667])  # a percent for a share
    assert loosely_equal(["Ontario."], ["ontario"]) and loosely_equal([2.0, 1.0], [1.0, 2.0])
    assert not loosely_equal([0.4], [0.416667]) and not loosely_equal(["quebec"], ["ontario"])
    assert not loosely_equal([1.0], [1.0, 2.0]) and not loosely_equal([], [])


def items_of(tmp_path, extra=(), max_seq_len=256):
    hitab = HitabSet(write_hitab(tmp_path / "hitab"))
    builder = QuestionBuilder(hitab, Tokenizer(), SerializeConfig(max_seq_len=max_seq_len))
    samples = hitab.samples("dev") + [sample_from_json(q) for q in extra]
    return {i.sample.id: i for i in builder.build(samples).items}


def guess(item, op, cells):
    return Prediction(op, tuple(cells), execute(op, cells, item.paths))


def test_each_cause_on_the_tiny_table(tmp_path):
    topk = question("q7", "which two provinces had the most in 2015?", ["canada", "ontario"],
                    ["topk-argmax"], [(1, 0), (2, 0)])  # fmt: skip
    items = items_of(tmp_path, [topk])
    q1, q4, q5, q7 = items["q1"], items["q4"], items["q5"], items["q7"]
    assert cause_of(q1, guess(q1, "none", [(2, 2)])) is None  # right
    assert cause_of(q7, guess(q7, "none", [(1, 0)])) == "out of operation set"
    assert cause_of(q5, guess(q5, "ratio_up", [(2, 2), (1, 2)])) == "operation wrong"
    assert cause_of(q5, guess(q5, "ratio_down", [(3, 2), (1, 2)])) == "cells wrong"  # 45 / 120
    assert cause_of(q4, guess(q4, "average", [(2, 1), (3, 1)])) == "both wrong"
    assert cause_of(q4, guess(q4, "none", [(2, 2)])) == "both wrong"  # 50, the sum is 95
    assert cause_of(q4, Prediction("sum", (), None)) == "cells wrong"  # nothing ran
    cut = items_of(tmp_path / "short", max_seq_len=24)  # q3's and q4's gold cells cut
    assert cut["q4"].example.meta["gold_shown"] is False
    assert cause_of(cut["q4"], guess(cut["q4"], "sum", [(2, 1), (3, 1)])) == "gold cells cut"


def test_matching_when_the_cells_are_the_gold_ones(tmp_path):
    """A gold recorded as 0.43 where its linked cells give 0.4167: the gold operation on the
    gold cells, marked wrong by HiTab's rules."""
    rounded = question("q8", "what share of canada lived in ontario in 2016?", [0.43], ["div"],
                       [(2, 2), (1, 2)])  # fmt: skip
    item = items_of(tmp_path, [rounded])["q8"]
    assert item.target.op == "ratio_down" and not item.target.verified
    assert cause_of(item, guess(item, "ratio_down", [(2, 2), (1, 2)])) == "matching"


def test_breakdown_of_a_tiny_model_and_its_bench(tmp_path):
    hitab = write_hitab(tmp_path / "hitab", copies=2)
    cfg = load_run_config(QARunConfig, overrides=SETTINGS)
    systems = run_finetune([hitab], tmp_path / "run", cfg)
    model, inputs = load_qa_model(tmp_path / "run" / "model")
    data = HitabSet(hitab)
    items = QuestionBuilder(data, Tokenizer(), inputs).build(data.samples("dev")).items
    found = predict(model, [i.example for i in items], [i.paths for i in items])
    rows = {row["kind"]: row for row in breakdown(items, found)}
    assert set(rows) == {"cell selection, 2 headers", "arithmetic", "superlative", "all"}
    assert [rows[k]["n"] for k in ("cell selection, 2 headers", "arithmetic", "superlative")] == [
        3, 2, 1]  # fmt: skip
    every = rows["all"]
    assert every["n"] == len(QUESTIONS) and every["share"] == 1.0
    assert every["accuracy"] == systems["dev"]["model"]["accuracy"]
    for row in rows.values():
        assert sum(c["n"] for c in row["causes"].values()) == row["wrong"]
        assert row["wrong"] == round(row["n"] * (1 - row["accuracy"]))
        assert row["out of operation set share"] == 0.0 and row["gold cells cut share"] == 0.0
    assert set(every["causes"]) == set(CAUSES)
    out = tmp_path / "errors.json"
    table_qa_errors.main(["--data", str(hitab), "--model", str(tmp_path / "run" / "model"),
                          "--json", str(out)])  # fmt: skip
    written = json.loads(out.read_text())
    assert written["targets"] == []
    assert [r["kind"] for r in written["results"]] == [r["kind"] for r in rows.values()]
    assert written["results"][-1]["causes"] == every["causes"]
