"""Reference points of `bench/pretrain.py` for the ForTaP objectives, measured on the same dev
targets as the model, and how surely the model beats each one.

- NRP: the majority class, a rule that reads positions only (chosen by hand) and the same rule
  fitted on the training samples' header pairs;
- NCP: always one class (the training majority, or the dev targets' own), and a rule that
  answers the most frequent class per operand shape;
- formula MLM: the most frequent operator, and a uniform guess among the cells for references;
- gaps: per-workbook tallies of the baselines and workbook-bootstrap intervals of the model's
  gap over them (`fortap.evaluation.by_workbook`).

Bench code, not library code: nothing in `fortap` needs these. Tests import it as
`bench.pretrain_baselines` (the repository root is on the test path).
"""

from __future__ import annotations

from collections import Counter

from fortap.encoding.example import Example
from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.evaluation.by_workbook import Tally, books_of, bootstrap_gap, effective_books, tallies
from fortap.objectives import ncp, nrp
from fortap.objectives.base import f1


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


# (objective, baseline name, what it is): the gaps the bench reports
GAPS = (("nrp", "majority", "NRP pair accuracy - majority class"),
        ("nrp", "rule", "NRP hand position rule - majority class"),
        ("ncp", "majority", "NCP accuracy - training majority"),
        ("formula_mlm", "majority", "formula MLM accuracy - majority / uniform guess"))  # fmt: skip


def _tally(metrics: dict[str, float]) -> Tally:
    """A baseline's {"acc", "n"} over one workbook as hits and count."""
    return Tally(metrics["acc"] * metrics["n"], metrics["n"])


def baseline_tallies(examples: list, base: dict) -> dict[tuple[str, str], dict[str, Tally]]:
    """{(objective, baseline): {workbook: Tally}} on the dev examples' built targets, each
    baseline answering as it does over the whole dev subset (`base`, from `baselines()` of `bench/pretrain.py`): NRP's
    majority class, NRP's hand position rule, NCP's training majority, formula MLM's most
    frequent operator with a uniform guess among the cells for references."""
    nrp_major = int(base["nrp"]["majority_label"])
    out: dict[tuple[str, str], dict[str, Tally]] = {key[:2]: {} for key in GAPS}
    for book, group in books_of(examples).items():
        labels = [y for e in group if (v := e.targets.get("nrp")) for y in v["labels"]]
        if labels:
            out["nrp", "majority"][book] = Tally(labels.count(nrp_major), len(labels))
            out["nrp", "rule"][book] = _tally(nrp_position_rule(group))
        values = [e.targets.get("ncp") for e in group]
        got = ncp_baseline(values, majority=int(base["ncp"]["majority_class"]))
        if got["n"]:
            out["ncp", "majority"][book] = _tally(got)
        values = [e.targets.get("formula_mlm") for e in group]
        cells = [len(e.cell_coords) for e in group]
        got = formula_mlm_baseline(values, cells, majority=int(base["formula_mlm"]["majority_op"]))
        if got["n"]:
            out["formula_mlm", "majority"][book] = _tally(got)
    return out


def gap_rows(per_book: dict, base_tallies: dict, rounds: int = 2000) -> list[dict]:
    """One row per `GAPS` entry: the gap (model - baseline, or rule - majority for NRP's rule),
    its 95 % workbook-bootstrap interval, the workbooks and the effective workbooks
    (`effective_books`) that carry the targets."""
    rows = []
    for name, which, label in GAPS:
        base = base_tallies[name, which]
        if not base:
            continue
        if which == "rule":  # the rule against the majority class: how wide the bar is
            upper, base = base, base_tallies[name, "majority"]
        else:
            upper = tallies(per_book, name)
        got = bootstrap_gap(upper, base, rounds=rounds)
        rows.append({"objective": name, "gap_of": label, **got,
                     "effective_books": effective_books([t.n for t in base.values()])})  # fmt: skip
    return rows


def print_gaps(rows: list[dict]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="by workbook (95 % interval: workbooks resampled with replacement)")
    for col in ("gap", "value", "interval", "workbooks", "effective"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(r["gap_of"], f"{r['gap']:+.4f}", f"[{r['low']:+.4f}, {r['high']:+.4f}]",
                      f"{r['books']:.0f}", f"{r['effective_books']:.1f}")  # fmt: skip
    Console().print(table)
