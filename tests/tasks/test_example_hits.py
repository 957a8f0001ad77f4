"""Per-target hits (`example_hits`) agree with the pooled metrics, by example."""

from __future__ import annotations

from fortap.tasks.formula_prediction.metrics import Gold, Guess, example_hits, formula_metrics

SUM = ("[START]", "SUM", "[RANGE]", "[:]", "[RANGE]", "[END]")
PLUS = ("[START]", "[RANGE]", "+", "[RANGE]", "[END]")
GOLD = Gold(SUM, ((1, 1), (2, 1)))


def test_hits_of_one_target_at_top1_and_topk():
    right = Guess(SUM, ((1, 1), (2, 1)))
    moved = Guess(SUM, ((1, 2), (2, 2)))  # right sketch, wrong cells
    other = Guess(PLUS, ((1, 1), (1, 2)))
    assert example_hits(GOLD, [right]) == {"formula_top1": 1, "formula_top5": 1,
                                           "sketch_top1": 1, "sketch_top5": 1}  # fmt: skip
    assert example_hits(GOLD, [moved, right]) == {"formula_top1": 0, "formula_top5": 1,
                                                  "sketch_top1": 1, "sketch_top5": 1}  # fmt: skip
    assert example_hits(GOLD, [other, moved], k=2) == {"formula_top1": 0, "formula_top2": 0,
                                                       "sketch_top1": 0, "sketch_top2": 1}  # fmt: skip
    assert example_hits(GOLD, [other, right], k=1)["formula_top1"] == 0
    assert example_hits(GOLD, []) == dict.fromkeys(
        ("formula_top1", "formula_top5", "sketch_top1", "sketch_top5"), 0
    )


def test_pooled_metrics_are_the_means_of_the_hits():
    guesses = [[Guess(SUM, ((1, 1), (2, 1)))], [Guess(SUM, ((1, 2), (2, 2)))],
               [Guess(PLUS, ((1, 1), (1, 2))), Guess(SUM, ((1, 1), (2, 1)))]]  # fmt: skip
    golds = [GOLD] * 3
    pooled = formula_metrics(golds, guesses)
    hits = [example_hits(g, r) for g, r in zip(golds, guesses, strict=True)]
    for key in ("formula_top1", "formula_top5", "sketch_top1", "sketch_top5"):
        assert pooled[key] == sum(h[key] for h in hits) / 3, key
    assert pooled["range_acc"] == 1 / 2  # of the two right sketches at top-1, one is right
