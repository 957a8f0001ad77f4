"""Header paths, the overlap rule, targets from links and the cut input, on the tiny table."""

from __future__ import annotations

from fortap.encoding.serialize import SerializeConfig
from fortap.tasks.table_qa.baselines import MajorityOp, overlap_cells, overlap_rule
from fortap.tasks.table_qa.headers import HeaderPaths, overlaps, words
from fortap.tasks.table_qa.inputs import TableCost, choose_cells, qa_batch, qa_example
from fortap.tasks.table_qa.match import FEATURES, cell_features
from fortap.tasks.table_qa.operations import OPS
from fortap.tasks.table_qa.samples import sample_from_json
from fortap.tasks.table_qa.targets import build_target
from tests.tasks.table_qa.tiny import QUESTIONS, tiny_table


def test_header_paths():
    paths = HeaderPaths(tiny_table())
    assert paths.left == {1: ((1, 0),), 2: ((1, 0), (2, 0)), 3: ((1, 0), (3, 0))}
    assert paths.top == {1: ((0, 1),), 2: ((0, 2),)}
    assert paths.header_path((3, 2)) == ((0, 2), (1, 0), (3, 0))
    assert words("How many workers in the Ontario?") == {"worker", "ontario"}


def test_overlap_rule_answers_the_crossing_cell():
    paths = HeaderPaths(tiny_table())
    rows, cols = overlaps(paths, "people in quebec in 2016")
    assert rows == {1: 0, 2: 0, 3: 1} and cols == {1: 0, 2: 1}
    assert overlap_rule(paths, "people in quebec in 2016").answer == (45.0,)
    assert overlap_cells(paths, "ontario or quebec in 2015", "diff") == [(2, 1), (3, 1)]


def test_majority_op_by_question_opening():
    majority = MajorityOp([("which one is larger", "argmax"), ("which one is smaller", "argmin"),
                           ("which one is largest", "argmax"), ("how many people", "none")])  # fmt: skip
    assert majority.op("which one? ") == "argmax"
    assert majority.op("how many cats") == "none"
    assert majority.op("unseen opening") == "argmax"


def test_targets_from_links_verified_by_execution():
    paths = HeaderPaths(tiny_table())
    found = {q["id"]: build_target(sample_from_json(q), paths) for q in QUESTIONS}
    assert (found["q1"].op, found["q1"].cells, found["q1"].verified) == ("none", ((2, 2),), True)
    assert (found["q3"].op, found["q3"].cells, found["q3"].verified) == (
        "argmax",
        ((2, 1), (3, 1)),
        True,
    )
    assert (found["q4"].op, found["q4"].verified) == ("sum", True)
    assert (found["q5"].op, found["q5"].verified) == ("ratio_down", True)


def test_cut_keeps_headers_and_the_relevant_cells(tokenizer):
    paths = HeaderPaths(tiny_table())
    tc = TableCost.of(paths, tokenizer, SerializeConfig())
    small = sum(tc.cost[rc] for rc in [(0, 1), (0, 2), (1, 0), (2, 0), (2, 2)])
    cells = choose_cells(tc, "people in ontario in 2016", small)
    assert (2, 2) in cells and (1, 0) in cells and (2, 0) in cells
    assert all(rc not in cells for rc in [(1, 1), (3, 1)])  # irrelevant data cells left out


def test_example_targets_and_ceiling(tokenizer):
    paths = HeaderPaths(tiny_table())
    tc = TableCost.of(paths, tokenizer, SerializeConfig())
    sample = sample_from_json(QUESTIONS[2])
    ex = qa_example(tc, sample.question, tokenizer, SerializeConfig(), build_target(sample, paths))
    picked = [ex.cell_coords[k] for k in ex.targets["table_qa"]["cells"]]
    assert picked == [(2, 1), (3, 1)] and ex.targets["table_qa"]["op"] == OPS.index("argmax")
    assert ex.meta["gold_shown"] is True
    tight = qa_example(tc, sample.question, tokenizer, SerializeConfig(max_seq_len=24),
                       build_target(sample, paths))  # fmt: skip
    assert len(tight) <= 24 and tight.meta["gold_shown"] is False
    batch = qa_batch([ex, tight])
    target = batch.targets["table_qa"]
    assert target["cells"].shape == batch.cell_mask.shape
    assert target["has_cells"].tolist() == [True, False]


def test_match_features():
    paths = HeaderPaths(tiny_table())
    found = cell_features(paths, "people in ontario in 2016, up from 40?", [(2, 2), (2, 1), (2, 0)])
    assert dict(zip(FEATURES, found[0], strict=True)) == {
        "row_words": 0.25, "col_words": 0.25, "best_row": 1.0, "best_col": 1.0,
        "own_words": 0.0, "header": 0.0, "number_in_question": 0.0}  # fmt: skip
    assert found[1][FEATURES.index("number_in_question")] == 1.0  # 40 is written
    assert (
        found[2][FEATURES.index("own_words")] == 1.0 and found[2][FEATURES.index("header")] == 1.0
    )
