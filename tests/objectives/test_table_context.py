"""Table-context retrieval: snippets, choices appended after the table, head, overfitting."""

from __future__ import annotations

import random

from fortap.corpus import snippets as sn
from fortap.encoding.serialize import serialize
from fortap.objectives import table_context as tc
from fortap.objectives.base import TargetContext
from fortap.objectives.multitask import MultiObjectiveModel

from .objective_kit import batch_of, cell_spans, overfit, revenue_table, seeded, tiny_encoder

NEGATIVES = ("apples and pears per orchard", "rainfall by month", "hospital beds per region")


def test_snippets_cut_words_from_the_first_fields():
    cfg = tc.TableContextConfig(fields=2, snippet_words=3)
    context = ("a b c d e", "f g", "ignored third field")
    assert sn.snippets(context, cfg) == ["a b c", "d e", "f g"]


def test_split_context_keeps_one_lead_and_the_rest():
    cfg = tc.TableContextConfig(snippet_words=2)
    lead, rest = sn.split_context(("a b c d e f",), cfg, random.Random(0))
    assert sorted([lead, *rest]) == ["a b", "c d", "e f"]
    assert sn.split_context((), cfg, random.Random(0)) == ("", [])


def test_a_lone_snippet_is_sometimes_the_choice():
    cfg = tc.TableContextConfig()
    outcomes = set()
    for seed in range(20):
        lead, rest = sn.split_context(("short title",), cfg, random.Random(seed))
        outcomes.add((lead, tuple(rest)))
    assert outcomes == {("short title", ()), ("", ("short title",))}


def make(tokenizer, vocab, seed, snippets=("quarterly revenue",), negatives=NEGATIVES):
    example = serialize(revenue_table(), tokenizer, context="by region")
    example.meta[tc.SNIPPETS] = list(snippets)
    ctx = TargetContext(vocab=vocab, rng=seeded(seed), negatives=negatives)
    return example, tc.targets(example, tc.TableContextConfig(), ctx)


def test_choices_pair_true_snippets_with_distractors(tokenizer, vocab):
    example, out = make(tokenizer, vocab, 0)
    target = out.targets["table_context"]
    assert sorted(target["labels"]) == [0, 1]
    assert target["choices"] == [13, 14]
    spans = cell_spans(out)
    true_cell = target["choices"][target["labels"].index(1)]
    start, end = spans[true_cell]
    assert tokenizer.decode(out.token_ids[start:end]) == "[SEP] quarterly revenue"


def test_own_snippets_are_never_distractors(tokenizer, vocab):
    for seed in range(10):
        _, out = make(tokenizer, vocab, seed, negatives=("quarterly revenue", "x y"))
        target = out.targets["table_context"]
        wrong = target["choices"][target["labels"].index(0)]
        start, end = cell_spans(out)[wrong]
        assert tokenizer.decode(out.token_ids[start:end]) == "[SEP] x y"


def test_without_a_true_snippet_there_is_no_choice(tokenizer, vocab):
    _, out = make(tokenizer, vocab, 0, snippets=())
    assert out.targets["table_context"] == {"choices": [], "labels": []}


def test_no_room_no_choice(tokenizer, vocab):
    example = serialize(revenue_table(), tokenizer, context="by region")
    example.meta[tc.SNIPPETS] = ["quarterly revenue"]
    ctx = TargetContext(
        vocab=vocab, rng=seeded(0), max_tokens=len(example) + 1, negatives=NEGATIVES
    )
    out = tc.targets(example, tc.TableContextConfig(), ctx)
    assert out.targets["table_context"] == {"choices": [], "labels": []}


def test_collate_masks_missing_choices(tokenizer, vocab):
    _, out = make(tokenizer, vocab, 0)
    batch = tc.collate([out.targets["table_context"], None])
    assert batch["choices"].tolist()[0] == [12, 13]
    assert batch["mask"].tolist() == [[True, True], [False, False]]


def test_head_overfits_one_batch(tokenizer, vocab):
    model = MultiObjectiveModel(tiny_encoder(2), [tc.OBJECTIVE])
    examples = [make(tokenizer, vocab, seed)[1] for seed in range(4)]
    batch = batch_of(examples, model)
    logs, steps = overfit(model, batch)
    print(f"table_context overfit: {steps} updates, loss {logs['loss/table_context']:.4f}")
    assert logs["loss/table_context"] < 0.05
    assert logs["acc/table_context"] == 1.0
