"""The formula-suggestion task's registry entry (`TASK`): evaluation only.

`fortap evaluate formula-suggestion PATHS -o OUT` reads the workbooks themselves (sheet-wide and
cross-sheet candidates need more than table regions) and measures the suggestion engine in the
sheet, new-formula and paper settings (`fortap.suggest.evaluate`). The ranker it uses is trained
by `fortap train-ranker`, not by `fortap finetune`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.table import Table as RichTable

from fortap.console import stdout_console
from fortap.suggest.candidates import source_names
from fortap.suggest.evaluate import SuggestEvalConfig, evaluate
from fortap.tasks.base import Task


def evaluate_and_print(paths: Sequence[str | Path], out: str | Path, cfg: SuggestEvalConfig):
    """`evaluate`, then the headline table on stdout (the whole report is in OUT/report.md)."""
    metrics = evaluate(paths, out, cfg)
    view = RichTable(title="formula suggestion: exact match, and sketch (pooled / per workbook)")
    heads = ("setting", "targets", "books", "top-1", "top-5", "rule order top-1", "recall")
    for name in (*heads, "sketch top-1"):
        view.add_column(name)
    for setting in cfg.settings:
        d = metrics[setting]["detail"]

        def both(key: str, d=d) -> str:
            return f"{d[key]['pooled']:.3f} / {d[key]['per_workbook']:.3f}"

        view.add_row(setting, str(d["targets"]), str(d["books"]), both("exact_top1"),
                     both("exact_top5"), both("rule_exact_top1"), both("recall"),
                     both("sketch_top1"))  # fmt: skip
    console = stdout_console()
    console.print(view)
    if cfg.model is not None:
        for setting in cfg.settings:
            d = metrics[setting]["detail"]
            if "model_beam_top1" not in d:
                continue
            hits = d.get("top_by_source", {}).get("model", {"top1": 0.0, "top5": 0.0})
            console.print(
                f"model, {setting}: gold among its candidates "
                f"{d['recall_by_source'].get('model', 0.0):.3f}; its own beam top-1 / top-5 "
                f"{d['model_beam_top1']['pooled']:.3f} / {d['model_beam_top5']['pooled']:.3f}; "
                f"ranked top-1 / top-5 of golds it proposed {hits['top1']:.3f} / {hits['top5']:.3f}",
                highlight=False,
            )
    console.print(f"report: {Path(out) / 'report.md'}")
    return metrics


TASK = Task(
    name="formula-suggestion",
    summary=f"rank formulas for a cell of a workbook (candidates: {', '.join(source_names())}; "
    "and a model's, given one)",
    config=SuggestEvalConfig,
    shorthands={
        "model": "model",
        "seed": "seed",
        "split": "split",
        "ranker": "ranker",
        "split_by": "split_by",
        "per_book": "per_book",
        "settings": "settings",
    },
    evaluate=evaluate_and_print,
)
