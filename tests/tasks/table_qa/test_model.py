"""The heads: shapes, padding, and one tiny batch overfitted."""

from __future__ import annotations

import torch

from fortap.encoding.serialize import SerializeConfig
from fortap.model.config import ModelConfig
from fortap.model.encoder import FortapEncoder
from fortap.tasks.table_qa.decoding import pick_cells
from fortap.tasks.table_qa.headers import HeaderPaths
from fortap.tasks.table_qa.inputs import TableCost, qa_batch, qa_example
from fortap.tasks.table_qa.model import TableQAModel
from fortap.tasks.table_qa.operations import OPS
from fortap.tasks.table_qa.predict import predict
from fortap.tasks.table_qa.samples import sample_from_json
from fortap.tasks.table_qa.targets import build_target
from tests.tasks.table_qa.tiny import QUESTIONS, tiny_table


def examples(tokenizer):
    paths = HeaderPaths(tiny_table())
    tc = TableCost.of(paths, tokenizer, SerializeConfig())
    samples = [sample_from_json(q) for q in QUESTIONS]
    return paths, [qa_example(tc, s.question, tokenizer, SerializeConfig(), build_target(s, paths))
                   for s in samples]  # fmt: skip


def tiny_model(tokenizer) -> TableQAModel:
    torch.manual_seed(0)
    return TableQAModel(
        FortapEncoder(ModelConfig.tiny(vocab_size=tokenizer.vocab_size, hidden_dropout=0.0))
    )


def test_shapes_and_padding(tokenizer):
    _, exs = examples(tokenizer)
    model = tiny_model(tokenizer).eval()
    batch = qa_batch(exs)
    cells, ops = model.scores(batch)
    assert cells.shape == batch.cell_mask.shape and ops.shape == (len(exs), len(OPS))
    alone_cells, alone_ops = model.scores(qa_batch(exs[:1]))
    k = len(exs[0].cell_coords)
    torch.testing.assert_close(alone_cells[0, :k], cells[0, :k], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(alone_ops[0], ops[0], atol=1e-5, rtol=1e-4)


def test_overfits_one_batch(tokenizer):
    paths, exs = examples(tokenizer)
    model = tiny_model(tokenizer)
    batch = qa_batch(exs)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    first = None
    for _ in range(80):
        loss, logs = model(batch)
        first = first if first is not None else logs["loss"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert logs["loss"] < 0.3 * first and logs["acc/cell_top1"] == 1.0
    found = predict(model, exs, [paths] * len(exs))
    # a random 2-layer encoder finds the one-cell answers within these updates, and most
    # operations (the two-cell ones take longer)
    assert [(p.cells, p.run.answer) for p in found if p.op == "none"] == [
        (((2, 2),), (50.0,)), (((3, 1),), (30.0,)), (((1, 1),), (100.0,))]  # fmt: skip
    assert [p.op for p in found][:4] == ["none", "none", "argmax", "sum"]


def test_pick_cells_per_operation():
    probs = [0.95, 0.2, 0.7, 0.92, 0.1]
    coords = [(1, 1), (1, 2), (2, 1), (1, 3), (3, 3)]
    data = [False] * 5
    assert pick_cells(probs, "none", coords, data) == [0, 3]  # same row, above 0.9
    assert pick_cells(probs, "none", coords, [False, False, False, True, False]) == [0]
    assert pick_cells(probs, "opposite", coords, data) == [0]
    assert pick_cells(probs, "diff", coords, data) == [0, 3]
    assert pick_cells(probs, "sum", coords, data) == [0, 3, 2]
    assert pick_cells([0.9, 0.1, 0.2], "sum", coords[:3], data[:3]) == [0, 2]  # at least two
    assert pick_cells([0.9, 0.1, 0.2], "part_ratio", coords[:3], data[:3]) == [0, 2, 1]
