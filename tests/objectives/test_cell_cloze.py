"""Cell-level cloze: blanks in place, answers appended, pointer head, overfitting."""

from __future__ import annotations

import random

import torch

from fortap.encoding.example import NULL_POS
from fortap.objectives import cell_cloze
from fortap.objectives.base import TargetContext
from fortap.objectives.multitask import MultiObjectiveModel

from .objective_kit import batch_of, cell_spans, overfit, seeded, tiny_encoder


def build(example, vocab, cfg, seed=0, max_tokens=256):
    ctx = TargetContext(vocab=vocab, rng=seeded(seed), max_tokens=max_tokens)
    return cell_cloze.targets(example, cfg, ctx)


def test_blanks_and_answers_pair_up(example, vocab, tokenizer):
    cfg = cell_cloze.CellClozeConfig(cell_rate=1.0, max_cells=4)
    out = build(example, vocab, cfg)
    target = out.targets["cell_cloze"]
    assert sorted(target["blanks"]) == [1, 2, 7, 10]  # the four word cells
    assert sorted(target["answers"]) == [13, 14, 15, 16]  # appended after the 12 table cells
    spans = cell_spans(out)
    original = cell_spans(example)
    for blank, answer in zip(target["blanks"], target["answers"], strict=True):
        start, end = spans[blank]
        assert out.token_ids[start:end] == [vocab.sep, vocab.emp]
        a_start, a_end = spans[answer]
        o_start, o_end = original[blank]
        assert out.token_ids[a_start:a_end] == example.token_ids[o_start:o_end]
        assert out.rows[a_start] == NULL_POS
    assert len(out) == len(example) + 4 * 2  # every blank costs [EMP] - n pieces + [SEP] + n


def test_too_few_candidates_gives_no_cloze(example, vocab):
    cfg = cell_cloze.CellClozeConfig(cell_rate=1.0, min_cells=5, max_cells=6)
    out = build(example, vocab, cfg)
    assert out.targets["cell_cloze"] == {"blanks": [], "answers": []}
    assert out.token_ids == example.token_ids


def test_answers_respect_the_token_budget(example, vocab):
    cfg = cell_cloze.CellClozeConfig(cell_rate=1.0, max_cells=4)
    out = build(example, vocab, cfg, max_tokens=len(example) + 5)
    assert len(out.targets["cell_cloze"]["blanks"]) == 2
    assert len(out) == len(example) + 4
    out = build(example, vocab, cfg, max_tokens=len(example) + 3)  # room for one: below min_cells
    assert out.targets["cell_cloze"]["blanks"] == [] and len(out) == len(example)


def test_collate_pads_to_the_most_blanks(example, vocab):
    full = build(example, vocab, cell_cloze.CellClozeConfig(cell_rate=1.0, max_cells=4))
    two = build(example, vocab, cell_cloze.CellClozeConfig(cell_rate=0.0, max_cells=4), seed=1)
    out = cell_cloze.collate([full.targets["cell_cloze"], two.targets["cell_cloze"]])
    assert out["blanks"].shape == (2, 4)
    assert out["mask"].tolist() == [[True] * 4, [True, True, False, False]]
    assert out["blanks"][0].tolist() == [c - 1 for c in full.targets["cell_cloze"]["blanks"]]


def test_padded_blanks_are_not_candidates():
    target = {"mask": torch.tensor([[True, False]])}
    scores = {"sep": torch.tensor([[[1.0, 50.0], [0.0, 0.0]]]), "tok": torch.zeros(1, 2, 2)}
    scores["sep"] = scores["sep"].masked_fill(~target["mask"].unsqueeze(1), -1e4)
    assert cell_cloze.metric(scores, target) == {"acc": 1.0, "n": 1.0}


def test_head_overfits_one_batch(example, vocab):
    model = MultiObjectiveModel(tiny_encoder(1), [cell_cloze.OBJECTIVE])
    model.configs["cell_cloze"] = cell_cloze.CellClozeConfig(cell_rate=1.0, max_cells=4)
    rng = random.Random(0)
    batch = batch_of([model.build_targets(example, vocab, rng, 256) for _ in range(4)], model)
    logs, steps = overfit(model, batch)
    print(f"cell_cloze overfit: {steps} updates, loss {logs['loss/cell_cloze']:.4f}")
    assert logs["loss/cell_cloze"] < 0.05
    assert logs["acc/cell_cloze"] == 1.0


def test_formula_related_cells_are_never_blanked(vocab, tokenizer):
    from fortap.objectives.draft import formula_related

    from .formula_samples import all_examples

    cfg = cell_cloze.CellClozeConfig(cell_rate=1.0)
    blanked = 0
    for seed, sample in enumerate(all_examples(tokenizer)):
        out = build(sample, vocab, cfg, seed)
        assert not set(out.targets["cell_cloze"]["blanks"]) & formula_related(sample)
        blanked += len(out.targets["cell_cloze"]["blanks"])
    assert blanked > 0
