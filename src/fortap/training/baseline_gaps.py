"""Per-workbook gaps of `bench/pretrain.py`: how surely the model beats each reference point
of the ForTaP objectives (`fortap.objectives.baselines`) on the same dev targets.

`baseline_tallies` counts each baseline's hits per dev workbook, answering as it does over the
whole dev subset; `gap_rows` puts a workbook-bootstrap interval on the model's gap over each
(`fortap.metrics.bootstrap`), with the workbooks and effective workbooks that carry the
targets; `print_gaps` prints them.
"""

from __future__ import annotations

from fortap.metrics.bootstrap import Tally, bootstrap_gap, effective_books
from fortap.objectives.baselines import formula_mlm_baseline, ncp_baseline, nrp_position_rule
from fortap.training.by_workbook import books_of, tallies

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


def gap_rows(by_book: dict, base_tallies: dict, rounds: int = 2000) -> list[dict]:
    """One row per `GAPS` entry: the gap (model - baseline, or rule - majority for NRP's rule),
    its 95 % workbook-bootstrap interval, the workbooks and the effective workbooks
    (`effective_books`) that carry the targets; `by_book`: the model's per-workbook logs
    (`evaluate_by_book`)."""
    rows = []
    for name, which, label in GAPS:
        base = base_tallies[name, which]
        if not base:
            continue
        if which == "rule":  # the rule against the majority class: how wide the bar is
            upper, base = base, base_tallies[name, "majority"]
        else:
            upper = tallies(by_book, name)
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
