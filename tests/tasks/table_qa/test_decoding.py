"""Decoding rules on literal scores over the tiny table (`decoding.decode`, `shaped`)."""

from __future__ import annotations

import pytest
import torch

from fortap.encoding.example import Example
from fortap.tasks.table_qa.decoding import DecodeConfig, QAScores, decode, shaped
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.inputs import QA_KEY
from fortap.tasks.table_qa.match import cell_features
from fortap.tasks.table_qa.operations import OPS
from fortap.tasks.table_qa.path_match import meets, path_match
from tests.tasks.table_qa.tiny import tiny_table

# every cell of the tiny table: headers (0, 1), (0, 2), (1..3, 0); data (1..3, 1..2)
COORDS = [(0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2), (3, 0), (3, 1), (3, 2)]


def example(question: str) -> tuple[Example, HeaderPaths]:
    paths = HeaderPaths(tiny_table())
    ex = Example(*([[]] * 9), cell_coords=list(COORDS))
    ex.inputs[QA_KEY] = cell_features(paths, question, COORDS)
    ex.meta["question"] = question
    return ex, paths


def scores(op: str, logits: dict) -> QAScores:
    ops = torch.zeros(len(OPS))
    ops[OPS.index(op)] = 5.0
    cells = torch.tensor([logits.get(rc, -5.0) for rc in COORDS])
    return QAScores(ops, cells)


def test_defaults_decode_as_before():
    ex, paths = example("how many in ontario in 2016?")
    found = decode(scores("none", {(2, 1): 2.0, (2, 2): 1.5}), ex, paths, DecodeConfig())
    assert found.op == "none" and found.cells == ((2, 1),) and found.run.answer == (40.0,)


def test_path_match_counts_unnamed_leaves_and_prefixes():
    _, paths = example("")
    # "pop" is a prefix of no header word; "ontario" names row 2, "2016" column 2
    found = path_match(paths, "how many in ontario in 2016?", [(2, 2), (2, 1), (3, 1), (0, 1)])
    assert found == [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (0.0, 0.0)]  # a header cell: zeros
    assert path_match(paths, "how many in ontar in 2016?", [(2, 2)]) == [(0.0, 1.0)]
    assert meets("rec", frozenset({"reception"})) and not meets("re", frozenset({"reception"}))


def test_unmatched_weight_lifts_the_named_cell():
    ex, paths = example("how many in ontario in 2016?")
    logits = {(2, 1): 1.0, (2, 2): 0.5}  # the encoder prefers ontario 2015
    assert decode(scores("none", logits), ex, paths, DecodeConfig()).cells == ((2, 1),)
    found = decode(scores("none", logits), ex, paths, DecodeConfig(unmatched_weight=1.0))
    assert found.cells == ((2, 2),) and found.run.answer == (50.0,)


def test_shapes_keep_numbers_and_one_line():
    ex, paths = example("difference between ontario and quebec in 2015?")
    # the plain rule takes the best two: a header and ontario 2016, which cannot run a diff
    logits = {(2, 0): 3.0, (2, 2): 2.5, (3, 1): 2.0, (2, 1): 1.0}
    plain = decode(scores("diff", logits), ex, paths, DecodeConfig())
    assert plain.cells == ((2, 0), (2, 2)) and plain.run is None
    found = decode(scores("diff", logits), ex, paths, DecodeConfig(op_shapes=True))
    assert found.cells == ((2, 2), (2, 1)) and found.run.answer == (10.0,)  # ontario's row


def probs_at(marks: dict) -> list[float]:
    """A cell probability per place of `COORDS`: the marked cells', 0 elsewhere."""
    return [marks.get(rc, 0.0) for rc in COORDS]


def test_shapes_take_a_run_on_the_best_line():
    _, paths = example("total of ontario and quebec in 2016")
    probs = probs_at({(2, 2): 0.9, (3, 2): 0.8, (3, 1): 0.7, (1, 1): 0.2})
    picked = shaped(probs, "sum", COORDS, paths, DecodeConfig())
    assert [COORDS[k] for k in picked] == [(2, 2), (3, 2)]  # column 2016; quebec 2015 left out


def test_config_refuses_unknown_and_nonsense():
    with pytest.raises(ValueError, match="unknown table-QA decoding settings"):
        DecodeConfig.of({"unmatched_wieght": 1.0})
    with pytest.raises(ValueError, match="unmatched_weight"):
        DecodeConfig(unmatched_weight=-1.0)


def test_shapes_take_a_superlative_over_siblings():
    _, paths = example("which province had the most people in 2016?")
    probs = probs_at({(2, 2): 0.9, (3, 2): 0.3, (1, 2): 0.2, (2, 1): 0.1})
    picked = shaped(probs, "argmax", COORDS, paths, DecodeConfig())
    # ontario and quebec are siblings under canada; canada (row 1) is their parent
    assert [COORDS[k] for k in picked] == [(2, 2), (3, 2)]


def test_config_survives_the_model_folder(tmp_path, tokenizer):
    from fortap.encoding.serialize import SerializeConfig
    from fortap.tasks.table_qa.checkpoint import load_qa_model, save_qa_model
    from tests.tasks.table_qa.test_model import tiny_model

    model = tiny_model(tokenizer)
    model.decoding = DecodeConfig(unmatched_weight=1.0, op_shapes=True)
    save_qa_model(model, tmp_path, SerializeConfig())
    loaded, _ = load_qa_model(tmp_path)
    assert loaded.decoding == model.decoding
