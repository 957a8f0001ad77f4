"""`report.md` of `fortap evaluate formula-suggestion`: the metrics as tables, and plots."""

from __future__ import annotations

from pathlib import Path

ROWS = (
    ("printed exact top-1 (what `suggest` shows)", "printed_exact_top1"),
    ("printed exact top-5", "printed_exact_top5"),
    ("printed text top-1, $ stripped", "printed_text_nodollar_top1"),
    ("exact top-1", "exact_top1"),
    ("exact top-5", "exact_top5"),
    ("text top-1, $ stripped", "text_nodollar_top1"),
    ("text top-5, $ stripped", "text_nodollar_top5"),
    ("sketch top-1", "sketch_top1"),
    ("sketch top-5", "sketch_top5"),
    ("rule order exact top-1", "rule_exact_top1"),
    ("rule order exact top-5", "rule_exact_top5"),
    ("rule order text top-1, $ stripped", "rule_text_nodollar_top1"),
    ("candidate recall", "recall"),
    ("model's own beam top-1", "model_beam_top1"),
    ("model's own beam top-5", "model_beam_top5"),
)


def _cell(m: dict | None) -> str:
    if not m:
        return "–"
    return (
        f"{m['pooled']:.3f} [{m['pooled_low']:.3f}, {m['pooled_high']:.3f}] · "
        f"{m['per_workbook']:.3f} [{m['per_workbook_low']:.3f}, {m['per_workbook_high']:.3f}]"
    )


def table(metrics: dict, part: str) -> list[str]:
    settings = [s for s in metrics if isinstance(metrics[s], dict) and "detail" in metrics[s]]
    lines = ["| metric | " + " | ".join(settings) + " |", "|---" * (len(settings) + 1) + "|"]
    counts = [
        f"{metrics[s][part].get('targets', 0)} / {metrics[s][part].get('books', 0)}"
        for s in settings
    ]
    lines.append("| targets / workbooks | " + " | ".join(counts) + " |")
    for label, key in ROWS:
        if key.startswith("model_") and not any(key in metrics[s][part] for s in settings):
            continue  # no model in this run
        lines.append(
            f"| {label} | " + " | ".join(_cell(metrics[s][part].get(key)) for s in settings) + " |"
        )
    for label, key in (
        ("ranker − rule order, exact top-1", "gap_vs_rules"),
        ("printed − ranker, exact top-1", "gap_printed_vs_ranker"),
    ):
        gaps = [metrics[s][part].get(key) for s in settings]
        lines.append(
            f"| {label} | "
            + " | ".join(f"{g['gap']:+.3f} [{g['low']:+.3f}, {g['high']:+.3f}]" if g else "–"
                         for g in gaps)
            + " |"
        )  # fmt: skip
    lat = [metrics[s][part].get("latency_ms") for s in settings]
    lines.append(
        "| latency p50 / p95 (ms, no preview) | "
        + " | ".join(f"{x['p50']:.1f} / {x['p95']:.1f}" if x else "–" for x in lat)
        + " |"
    )
    lat = [metrics[s][part].get("latency_with_preview_ms") for s in settings]
    lines.append(
        "| latency p50 / p95 / max (ms, with previews) | "
        + " | ".join(f"{x['p50']:.1f} / {x['p95']:.1f} / {x['max']:.0f}" if x else "–" for x in lat)
        + " |"
    )
    return lines


PROTOCOL_ROWS = (
    ("formula-key top-1", "top1"),
    ("formula-key top-5", "top5"),
    ("rule order formula-key top-1", "rule_top1"),
    ("formula key among candidates", "recall"),
)


def protocol_table(metrics: dict, subset: str) -> list[str]:
    """The `paper_protocol` rates of one subset (`kept` or `window10`), a column per setting."""
    settings = [
        s for s in metrics if isinstance(metrics[s], dict) and "paper_protocol" in metrics[s]
    ]
    blocks = [metrics[s]["paper_protocol"][subset] for s in settings]
    lines = ["| metric | " + " | ".join(settings) + " |", "|---" * (len(settings) + 1) + "|"]
    lines.append("| targets | " + " | ".join(str(b["n"]) for b in blocks) + " |")
    for label, key in PROTOCOL_ROWS:
        lines.append(f"| {label} | " + " | ".join(_cell(b.get(key)) for b in blocks) + " |")
    return lines


def sources(metrics: dict) -> list[str]:
    lines = [
        "| setting | gold among candidates, by source | top-1 share · precision, by source |"
        " exact top-1 / top-5 of golds the source proposed |",
        "|---|---|---|---|",
    ]
    for s, m in metrics.items():
        if not (isinstance(m, dict) and "detail" in m):
            continue
        d = m["detail"]
        rec = ", ".join(f"{k} {v:.3f}" for k, v in d.get("recall_by_source", {}).items())
        top = ", ".join(
            f"{k} {v['share']:.2f} · {v['precision']:.3f}"
            for k, v in d.get("top1_by_source", {}).items()
        )
        hits = ", ".join(
            f"{k} {v['top1']:.3f} / {v['top5']:.3f}" for k, v in d.get("top_by_source", {}).items()
        )
        lines.append(f"| {s} | {rec} | {top} | {hits} |")
    return lines


def write_report(metrics: dict, out: Path) -> None:
    """`report.md` and its plots (`top1.png`, `load.png`) in `out`."""
    config = metrics.get("config", {})
    lines = [
        "# Formula suggestion",
        "",
        f"Ranker: `{metrics.get('ranker')}`; split: {config.get('split')}"
        f" (by {config.get('split_by', 'workbook')}).",
        "Each cell: pooled over targets [95 % workbook-bootstrap interval] · mean of per-workbook"
        " rates [interval]. Exact: formula text equal up to case, spaces and printing, `$` kept;"
        " text, `$` stripped: the same without `$`. Printed: the order `fortap suggest` shows"
        " (previews and their reordering included); the other rows: the ranker's order alone.",
        *_sheet_split_note(config),
        "",
        "## All targets",
        "",
        *table(metrics, "detail"),
        "",
        "## The paper's kept subset",
        "",
        *table(metrics, "kept"),
        "",
        "## The paper's protocol",
        "",
        "Formula key: the sketch with each reference's cell (constants by type), as the paper"
        " scores. Kept: the paper's filters, at most 30 tokens, every reference inside the"
        " target's table; window10: those with every reference within 10 rows and columns.",
        "",
        "### kept",
        "",
        *protocol_table(metrics, "kept"),
        "",
        "### window10",
        "",
        *protocol_table(metrics, "window10"),
        "",
        "## By source",
        "",
        *sources(metrics),
        "",
        "![top-1 by setting](top1.png)",
        "",
        "![load time by workbook size](load.png)",
        "",
    ]
    if metrics.get("unreadable"):
        lines += ["## Unreadable workbooks", ""]
        lines += [f"- {e['path']}: {e['error']}" for e in metrics["unreadable"]]
    (out / "report.md").write_text("\n".join(lines) + "\n")
    _plots(metrics, out)


def _sheet_split_note(config: dict) -> list[str]:
    """What a split by sheet changes (`evaluate`'s module doc), said once under the header."""
    if config.get("split_by") != "sheet":
        return []
    return [
        "",
        "Split by sheet: every workbook is read, so the formulas other sheets show are those of"
        " training-side sheets too, and workbooks the ranker was trained on (split by workbook)"
        " take part with their sheets of this side, whose formulas it has seen.",
    ]


def _plots(metrics: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings = [s for s in metrics if isinstance(metrics[s], dict) and "detail" in metrics[s]]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.18
    for i, (key, label) in enumerate(
        (("printed_exact_top1", "printed"), ("exact_top1", "ranker"),
         ("rule_exact_top1", "rule order"), ("recall", "recall"))
    ):  # fmt: skip
        values = [metrics[s]["detail"].get(key, {}).get("pooled", 0.0) for s in settings]
        ax.bar([j + i * width for j in range(len(settings))], values, width, label=label)
    ax.set_xticks([j + 1.5 * width for j in range(len(settings))], settings)
    ax.set_ylim(0, 1)
    ax.set_ylabel("pooled rate")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "top1.png", dpi=100)
    plt.close(fig)
    loads = metrics.get("load", [])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.scatter([x["cells"] for x in loads], [x["seconds"] for x in loads], s=10)
    ax.set_xscale("symlog")
    ax.set_xlabel("cells in the workbook")
    ax.set_ylabel("read + prepare (s)")
    fig.tight_layout()
    fig.savefig(out / "load.png", dpi=100)
    plt.close(fig)
