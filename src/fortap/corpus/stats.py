"""Counts of a corpus: per-sample contributions, and the printed report.

`sample_stats(facts, split)` is what one sample adds to the totals: its split, its input mode,
whether each ForTaP objective has a target in it (NRP: a formula header and at least one
positive; NCP: at least one group; formula MLM: formula tokens shown) and the labels it
carries. Task totals are these summed (`tasks.add_counts`); the build sums the tasks.
"""

from __future__ import annotations

from collections.abc import Mapping

from fortap.encoding.formula_targets import FormulaTargets
from fortap.formula.targets import NCP_CLASSES
from fortap.formula.tokens import FORMULA_VOCAB


def sample_stats(facts: FormulaTargets | None, split: str) -> dict:
    """One sample's contribution to the corpus counts (`facts` = `targets[FORMULA_KEY]` or None)."""
    out: dict = {"samples": {split: 1}}
    if facts is None:
        out["table_samples"] = 1
        return out
    out["formula_samples"] = 1
    out["modes"] = {facts.mode: 1}
    objectives: dict[str, int] = {}
    labels: dict = {}
    if facts.formula_header and facts.positives:
        objectives["nrp"] = 1
        labels["nrp"] = {"positive": len(facts.positives), "negative": len(facts.negatives)}
        labels["nrp_side"] = {facts.side: 1}
    if facts.row_header or facts.col_header:
        objectives["nrp_text"] = 1
    groups = facts.ncp_groups()
    if groups:
        objectives["ncp"] = 1
        labels["ncp"] = {}
        for label, _ in groups:
            labels["ncp"][NCP_CLASSES[label]] = labels["ncp"].get(NCP_CLASSES[label], 0) + 1
    tokens = facts.tokens
    if tokens:
        objectives["formula_mlm"] = 1
        ops: dict[str, int] = {}
        for _, kind, vocab, _ in tokens:
            if kind == "op":
                ops[FORMULA_VOCAB[vocab]] = ops.get(FORMULA_VOCAB[vocab], 0) + 1
        refs = [ref for _, kind, _, ref in tokens if kind == "ref"]
        labels["formula_mlm_ops"] = ops
        labels["formula_mlm_refs"] = {
            "pointed": sum(r > 0 for r in refs),
            "outside_input": sum(r == 0 for r in refs),
        }
    out["objectives"] = objectives
    out["labels"] = labels
    return out


def summary_rows(stats: Mapping) -> list[tuple[str, str]]:
    """(what, value) rows of the headline numbers, in a fixed order."""
    verdicts = stats.get("verdicts", {})
    rows = [
        ("input tables", stats.get("tables", 0)),
        ("duplicate-workbook tables skipped", stats.get("duplicate_tables", 0)),
        ("tables with kept formulas", stats.get("tables_with_kept_formulas", 0)),
        ("formula cells", stats.get("formula_cells", 0)),
        ("formulas kept", verdicts.get("keep", 0)),
        ("samples dropped (needed cells do not fit)", stats.get("dropped_no_room", 0)),
        ("formula samples", stats.get("formula_samples", 0)),
        ("table samples (no formula)", stats.get("table_samples", 0)),
    ]
    rows += [(f"samples in {s}", n) for s, n in sorted(stats.get("samples", {}).items())]
    rows += [(f"input mode {m}", n) for m, n in sorted(stats.get("modes", {}).items())]
    rows += [
        (f"samples with {o} targets", n) for o, n in sorted(stats.get("objectives", {}).items())
    ]
    return [(name, str(value)) for name, value in rows]


def print_report(stats: Mapping, books: Mapping[str, int]) -> None:
    """Print the headline table, the split's workbook counts and the label distributions."""
    from rich.table import Table as RichTable

    from fortap.console import stdout_console

    console = stdout_console()
    table = RichTable(title="corpus")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in summary_rows(stats):
        table.add_row(name, value)
    for split, n in books.items():
        table.add_row(f"workbook keys in {split} (HiTab: one per table)", str(n))
    console.print(table)
    discards = {k: v for k, v in stats.get("verdicts", {}).items() if k != "keep"}
    console.print(
        "formula discards:", dict(sorted(discards.items(), key=lambda kv: -kv[1])), highlight=False
    )
    for name, counts in sorted(stats.get("labels", {}).items()):
        ordered = dict(sorted(counts.items(), key=lambda kv: -kv[1]))
        console.print(f"labels {name}:", ordered, highlight=False)
