"""Reference points for the ForTaP objectives: what a predictor that does not read the table
scores on the same targets as the model, so a dev metric says how much the encoder learnt.

- NRP (`nrp`): the majority class (`nrp_baseline`), a rule that reads positions only, chosen
  by hand (`nrp_position_rule`), and the same kind of rule fitted on the training samples'
  header pairs (`nrp_fitted_position_rule`);
- NCP (`ncp`): always one class (`ncp_baseline`: the training majority from
  `ncp_class_counts`, or the evaluated targets' own), and a rule that answers the most frequent
  class per operand shape (`ncp_position_rule`);
- formula MLM (`formula_mlm`): the most frequent operator, and a uniform guess among the cells
  for references (`formula_mlm_baseline`).

Each is a function of built targets (`targets[name]` of examples) or of the samples' formula
facts (`targets[FORMULA_KEY]`), and returns the metrics the objective logs ("acc", "f1", "n").
`bench/pretrain.py` measures them beside the model and puts workbook-bootstrap intervals on
the gaps.
"""

from __future__ import annotations

from collections import Counter

from fortap.encoding.example import Example
from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.metrics.f1 import f1
from fortap.objectives import ncp, nrp


def nrp_baseline(values: list[dict | None]) -> dict[str, float]:
    """Trivial predictors on built targets (`targets["nrp"]` of dev examples): the majority
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


def nrp_position_rule(examples: list[Example], window: int = 3) -> dict[str, float]:
    """A rule that reads positions only, as a reference point above the majority class: a
    candidate header is called referenced when it lies 1..`window` rows (or, for headers on the
    same row, columns) before the formula header, as the items just above a total do. Pair
    accuracy and F1 on the examples' built targets."""
    return _score_offsets(examples, lambda gap: 0 < gap <= window)


def nrp_fitted_position_rule(
    train: list[Example], examples: list[Example], clip: tuple[int, int] = (-6, 8)
) -> dict[str, float]:
    """The same kind of rule fitted on the training split instead of chosen by hand: per offset
    (`pair_offset`, clipped to `clip`), the majority label of the training samples' header
    pairs (their facts, every negative weighted as the 3:1 sampling would keep it). Scored on
    the examples' built targets like `nrp_position_rule`: how far positions learnt from the
    training workbooks carry to others."""
    votes: dict[int, list[float]] = {}  # offset -> [weight of negatives, of positives]
    low, high = clip
    clipped = lambda gap: min(high, max(low, gap))  # noqa: E731
    for x in train:
        facts = x.targets.get(FORMULA_KEY)
        if not facts or not facts.formula_header or not facts.positives:
            continue
        pos, neg = facts.positives, facts.negatives
        keep = min(1.0, nrp.NrpConfig.negative_ratio * len(pos) / len(neg)) if neg else 0.0
        for cells, label, weight in ((pos, 1, 1.0), (neg, 0, keep)):
            for cell in cells:
                gap = clipped(nrp.pair_offset(x, facts.formula_header, cell))
                votes.setdefault(gap, [0.0, 0.0])[label] += weight
    said = {gap: v[1] > v[0] for gap, v in votes.items()}
    return _score_offsets(examples, lambda gap: said.get(clipped(gap), False))


def _score_offsets(examples: list[Example], says) -> dict[str, float]:
    """Pair accuracy and F1 of `says(offset) -> referenced?` on the examples' built targets
    (each pair's offset as `targets` recorded it)."""
    tp = fp = fn = right = 0
    for example in examples:
        target = example.targets.get(nrp.NAME)
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


def ncp_baseline(values: list[dict | None], majority: int | None = None) -> dict[str, float]:
    """Accuracy of always answering one class on these targets: `majority` (e.g. the training
    split's most frequent class, see `ncp_class_counts`) or, by default, these targets' own most
    frequent class (an oracle that has seen the evaluation labels)."""
    labels = Counter(label for v in values if v for label, _ in v["groups"])
    n = sum(labels.values())
    if majority is None:
        top = labels.most_common(1)
        majority = top[0][0] if top else -1
    return {"acc": labels[majority] / n if n else 0.0, "n": float(n),
            "majority_class": float(majority)}  # fmt: skip


def ncp_class_counts(
    facts: list[FormulaTargets | None], cfg: ncp.NcpConfig | None = None
) -> Counter:
    """NCP classes of corpus formula facts (`targets[FORMULA_KEY]` of samples), as `targets` would
    draw them, e.g. to find the training split's majority class."""
    cfg = cfg or ncp.NcpConfig()
    return Counter(label for f in facts for label, _ in ncp.operand_groups(f, cfg))


def ncp_operand_shape(example: Example, cells: list[int]) -> tuple[int, ...]:
    """What positions alone say about an operand group: (cells, up to 3; all on one row; all in
    one column; row span + column span, up to 5)."""
    at = [example.cell_coords[c - 1] for c in cells]
    rows, cols = {r for r, _ in at}, {c for _, c in at}
    span = max(rows) - min(rows) + max(cols) - min(cols)
    return (min(len(cells), 3), int(len(rows) == 1), int(len(cols) == 1), min(span, 5))


def ncp_position_rule(
    train: list[Example], dev: list[Example], cfg: ncp.NcpConfig | None = None
) -> dict:
    """A rule that reads positions only, as a reference point above the majority class: each
    `ncp_operand_shape` answers the class most frequent for it among the training groups (the
    training majority for a shape never seen). Groups come from the samples' formula facts as
    `targets` draws them. Accuracy on `dev`."""
    cfg = cfg or ncp.NcpConfig()

    def shapes(examples: list[Example]):
        for example in examples:
            for label, cells in ncp.operand_groups(example.targets.get(FORMULA_KEY), cfg):
                yield ncp_operand_shape(example, cells), label

    by_shape: dict[tuple[int, ...], Counter] = {}
    for shape, label in shapes(train):
        by_shape.setdefault(shape, Counter())[label] += 1
    overall = sum(by_shape.values(), Counter()).most_common(1)
    fallback = overall[0][0] if overall else -1
    answer = {shape: counts.most_common(1)[0][0] for shape, counts in by_shape.items()}
    hits = n = 0
    for shape, label in shapes(dev):
        hits += answer.get(shape, fallback) == label
        n += 1
    return {"acc": hits / n if n else 0.0, "n": float(n)}


def formula_mlm_baseline(
    values: list[dict | None], cells: list[int] | None = None, majority: int | None = None
) -> dict[str, float]:
    """Trivial predictors on built targets: operators by one label, `majority` or by default
    these targets' most frequent one (`majority_op`); references by a uniform guess among the
    example's cells (`cells[i]` = cells of example i), whose expected accuracy is 1/cells, or 0
    when `cells` is not given."""
    labels = Counter(y for v in values if v for y in v["op_labels"])
    n_op = sum(labels.values())
    if majority is None:
        majority = labels.most_common(1)[0][0] if labels else -1
    op_hits = labels[majority]
    n_ref = sum(len(v["ref_cells"]) for v in values if v)
    ref_hits = 0.0
    if cells is not None:
        ref_hits = sum(
            len(v["ref_cells"]) / max(1, k) for v, k in zip(values, cells, strict=True) if v
        )
    n = n_op + n_ref
    return {"acc": (op_hits + ref_hits) / n if n else 0.0, "acc_op": op_hits / n_op if n_op else 0.0,
            "acc_ref": ref_hits / n_ref if n_ref else 0.0, "n": float(n),
            "majority_op": float(majority)}  # fmt: skip
