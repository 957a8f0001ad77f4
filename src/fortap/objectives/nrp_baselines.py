"""Reference points for NRP on dev targets: the majority class and two rules that read
positions only (one chosen by hand, one fitted on the training samples' header pairs).
Used by `bench/pretrain.py` beside the model's metrics."""

from __future__ import annotations

from fortap.corpus.samples import FORMULA_KEY
from fortap.encoding.example import Example
from fortap.objectives.nrp import NAME, NrpConfig, f1, pair_offset


def baseline(values: list[dict | None]) -> dict[str, float]:
    """Trivial predictors on built targets (`targets[NAME]` of dev examples): the majority
    class's pair accuracy (`majority_label`: 1 when positives lead), the F1 of calling every
    pair positive, and the tag majority accuracy."""
    labels = [y for v in values if v for y in v["labels"]]
    tags = [t for v in values if v and v["tags"] is not None for t in v["tags"]]
    pos = sum(labels)
    majority = max(pos, len(labels) - pos) / len(labels) if labels else 0.0
    tag_major = max((tags.count(t) for t in set(tags)), default=0) / len(tags) if tags else 0.0
    return {
        "acc": majority,
        "f1": f1(pos, len(labels) - pos, 0),
        "tag_acc": tag_major,
        "n": float(len(labels)),
        "majority_label": float(pos > len(labels) - pos),
    }


def position_rule(examples: list[Example], window: int = 3) -> dict[str, float]:
    """A rule that reads positions only, as a reference point above the majority class: a
    candidate header is called referenced when it lies 1..`window` rows (or, for headers on the
    same row, columns) before the formula header, as the items just above a total do. Pair
    accuracy and F1 on the examples' built targets."""
    return _score_offsets(examples, lambda gap: 0 < gap <= window)


def fitted_position_rule(
    train: list[Example], examples: list[Example], clip: tuple[int, int] = (-6, 8)
) -> dict[str, float]:
    """The same kind of rule fitted on the training split instead of chosen by hand: per offset
    (`pair_offset`, clipped to `clip`), the majority label of the training samples' header
    pairs (their facts, every negative weighted as the 3:1 sampling would keep it). Scored on
    the examples' built targets like `position_rule`: how far positions learnt from the
    training workbooks carry to others."""
    votes: dict[int, list[float]] = {}  # offset -> [weight of negatives, of positives]
    low, high = clip
    clipped = lambda gap: min(high, max(low, gap))  # noqa: E731
    for x in train:
        facts = x.targets.get(FORMULA_KEY)
        if not facts or not facts["formula_header"] or not facts["positives"]:
            continue
        pos, neg = facts["positives"], facts["negatives"]
        keep = min(1.0, NrpConfig.negative_ratio * len(pos) / len(neg)) if neg else 0.0
        for cells, label, weight in ((pos, 1, 1.0), (neg, 0, keep)):
            for cell in cells:
                gap = clipped(pair_offset(x, facts["formula_header"], cell))
                votes.setdefault(gap, [0.0, 0.0])[label] += weight
    said = {gap: v[1] > v[0] for gap, v in votes.items()}
    return _score_offsets(examples, lambda gap: said.get(clipped(gap), False))


def _score_offsets(examples: list[Example], says) -> dict[str, float]:
    """Pair accuracy and F1 of `says(offset) -> referenced?` on the examples' built targets
    (each pair's offset as `targets` recorded it)."""
    tp = fp = fn = right = 0
    for example in examples:
        target = example.targets.get(NAME)
        if not target or not target["candidates"]:
            continue
        for gap, label in zip(target["offsets"], target["labels"], strict=True):
            said, label = says(gap), bool(label)
            right += said == label
            tp += said and label
            fp += said and not label
            fn += label and not said
    pairs = right + fp + fn  # each pair is right, a false positive or a miss
    return {"acc": right / pairs if pairs else 0.0, "f1": f1(tp, fp, fn), "n": float(pairs)}
