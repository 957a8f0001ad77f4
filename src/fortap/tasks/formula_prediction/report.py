"""Formula-prediction reports: one comparison table (rich for the terminal, Markdown for
`report.md`) and two PNG plots (accuracy by sketch length, learning curve).

A *system* is one row of the comparison: a name and the metrics dict of
`metrics.formula_metrics` (the fine-tuned model, the rule baseline in the paper and sheet
settings). The learning curve is a list of `CurvePoint`s: formula top-1 of a
model trained on a share of the training examples, measured on the same test examples.
matplotlib draws with the Agg backend (no display needed), imported only when plotting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table as RichTable

from fortap.tasks.formula_prediction.metrics import LENGTH_BUCKETS

COLUMNS = (
    ("formula top-1", "formula_top1"),
    ("top-1 per workbook", "formula_top1_per_workbook"),
    ("formula top-5", "formula_top5"),
    ("sketch top-1", "sketch_top1"),
    ("sketch top-5", "sketch_top5"),
    ("range acc", "range_acc"),
)
LENGTH_PLOT, CURVE_PLOT = "accuracy_by_sketch_length.png", "learning_curve.png"
# what the two less obvious columns mean, one line each, printed under the comparison
TERMS = (
    "sketch: the formula with each cell reference replaced by [RANGE] "
    "(=SUM(B7:B8) has the sketch SUM([RANGE]:[RANGE])); sketch top-k counts the right shape",
    "range acc: of the formulas whose top-1 sketch is right, the share whose cell references "
    "are all right too",
)


@dataclass(frozen=True)
class CurvePoint:
    """Formula top-1 on the test examples of a model trained on `share` of the training set."""

    share: float
    n_train: int
    formula_top1: float


def leaders(systems: Mapping[str, Mapping]) -> list[str]:
    """Every system at the highest formula top-1, in listed order (more than one: a tie)."""
    top = max(m.get("formula_top1", 0.0) for m in systems.values())
    return [name for name, m in systems.items() if m.get("formula_top1", 0.0) == top]


def best_system(systems: Mapping[str, Mapping]) -> str:
    """The system with the highest formula top-1, or `a and b (tie)` when several share it."""
    names = leaders(systems)
    return names[0] if len(names) == 1 else " and ".join(names) + " (tie)"


def comparison_rich(systems: Mapping[str, Mapping], title: str) -> RichTable:
    """The comparison as a rich table, one row per system."""
    view = RichTable(title=title, title_justify="left")
    view.add_column("system", no_wrap=True)
    view.add_column("n", justify="right")
    for label, _ in COLUMNS:
        view.add_column(label, justify="right")
    for name, m in systems.items():
        view.add_row(name, str(m.get("n", 0)), *(_pct(m.get(key)) for _, key in COLUMNS))
    return view


def comparison_markdown(systems: Mapping[str, Mapping]) -> str:
    """The comparison as a Markdown table."""
    head = ["system", "n", *(label for label, _ in COLUMNS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, m in systems.items():
        cells = [name, str(m.get("n", 0)), *(_pct(m.get(key)) for _, key in COLUMNS)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def plot_by_length(systems: Mapping[str, Mapping], path: Path) -> Path:
    """Grouped bars: formula top-1 per sketch-length bucket, one colour per system."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / max(1, len(systems))
    for i, (name, m) in enumerate(systems.items()):
        by_len = m.get("by_sketch_length", {})
        ys = [by_len.get(b, {}).get("formula_top1", 0.0) for b in LENGTH_BUCKETS]
        xs = [k + i * width for k in range(len(LENGTH_BUCKETS))]
        ax.bar(xs, ys, width, label=name)
    counts = [next(iter(systems.values()), {}).get("by_sketch_length", {}).get(b, {}).get("n", 0)
              for b in LENGTH_BUCKETS]  # fmt: skip
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(LENGTH_BUCKETS))])
    ax.set_xticklabels([f"{b}\n(n={n})" for b, n in zip(LENGTH_BUCKETS, counts, strict=True)])
    ax.set_xlabel("sketch length (operators + functions + references)")
    ax.set_ylabel("formula top-1")
    ax.set_ylim(0, 1)
    ax.legend()
    return _save(fig, path, plt)


def plot_curve(curve: Sequence[CurvePoint], path: Path, baseline: float | None = None) -> Path:
    """Formula top-1 against the number of training examples; `baseline` as a dashed line."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    points = sorted(curve, key=lambda p: p.n_train)
    ax.plot([p.n_train for p in points], [p.formula_top1 for p in points], "o-", label="model")
    if baseline is not None:
        ax.axhline(baseline, linestyle="--", color="grey", label="rules (paper setting)")
    ax.set_xlabel("training examples")
    ax.set_ylabel("formula top-1 (test)")
    ax.set_ylim(0, 1)
    ax.legend()
    return _save(fig, path, plt)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: Path, plt) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_report(
    out: Path,
    systems: Mapping[str, Mapping],
    curve: Sequence[CurvePoint] = (),
    notes: Sequence[str] = (),
    title: str = "Formula prediction",
) -> Path:
    """Write `report.md` and its plots into `out`; returns the report's path."""
    out.mkdir(parents=True, exist_ok=True)
    plot_by_length(systems, out / LENGTH_PLOT)
    lines = [f"# {title}", "", comparison_markdown(systems), ""]
    lines += [f"- {term}" for term in TERMS] + [""]
    best = best_system(systems) if systems else None
    if best is not None:
        lines += [f"Best formula top-1: **{best}**.", ""]
    lines += [f"- {note}" for note in notes] + ([""] if notes else [])
    lines += ["## Accuracy by sketch length", "", f"![accuracy by sketch length]({LENGTH_PLOT})"]
    if curve:
        paper = systems.get("rules (paper)", {}).get("formula_top1")
        plot_curve(curve, out / CURVE_PLOT, paper)
        lines += ["", "## Learning curve", "", "| share | train examples | formula top-1 |"]
        lines += ["|---|---|---|"]
        lines += [f"| {p.share:g} | {p.n_train} | {_pct(p.formula_top1)} |" for p in curve]
        lines += ["", f"![learning curve]({CURVE_PLOT})"]
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path
