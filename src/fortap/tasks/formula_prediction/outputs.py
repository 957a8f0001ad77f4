"""What a formula-prediction run writes: `metrics.json`'s record and the report.

`run_metrics` is the record: every system's metrics on the test examples, the split's sizes,
the learning curve, the config and the notes (the split, the run, the best system, and the
model's gap to each baseline with its interval over workbooks). `show_run` writes
`report.md` with its plots and prints the comparison. A fine-tuning run writes them through
the shared run (`tasks/run.py`); `write_outputs` writes them for `fortap evaluate`.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from rich.console import Console

from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.report import (
    CurvePoint,
    best_system,
    comparison_rich,
    write_report,
)
from fortap.tasks.formula_prediction.run_data import FormulaRun
from fortap.tasks.run_config import config_dict


def run_metrics(run: FormulaRun, cfg: FormulaRunConfig, curve: list[CurvePoint]) -> dict:
    """metrics.json's record of `run` (module doc)."""
    best = best_system(run.systems)
    steps, beam = cfg.training.steps, cfg.decoding.beam
    notes = [*run.notes, f"encoder: {cfg.encoder.name}; {steps} updates; beam {beam}"]
    notes.append(f"best formula top-1: {best}")
    for name, by_metric in run.systems.get("model", {}).get("gaps", {}).items():
        for metric, modes in by_metric.items():
            for mode, gap in modes.items():
                how = "pooled" if mode == "pooled" else "per-workbook mean"
                notes.append(
                    f"{metric.replace('_top', ' top-')}, model - {name} ({how}): "
                    f"{gap['gap']:+.3f} (95 % interval over {gap['books']:.0f} workbooks: "
                    f"[{gap['low']:+.3f}, {gap['high']:+.3f}])"
                )
    return {
        "systems": run.systems,
        "split": {k: len(v) for k, v in run.split.items()},
        "curve": [asdict(p) for p in curve],
        "config": config_dict(cfg),
        "notes": notes,
    }


def show_run(out: Path, metrics: dict, console: Console) -> None:
    """report.md and its plots from `metrics` (`run_metrics`); prints the comparison, the best
    system and the model's gaps."""
    systems, notes = metrics["systems"], metrics["notes"]
    write_report(out, systems, [CurvePoint(**p) for p in metrics["curve"]], notes)
    console.print(comparison_rich(systems, "formula prediction (test split)"))
    console.print(f"best formula top-1: {best_system(systems)}; report in {out / 'report.md'}")
    for note in notes:
        if ", model - " in note:
            console.print(f"   {note}", markup=False, highlight=False)


def write_outputs(
    out: Path, run: FormulaRun, cfg: FormulaRunConfig, curve: list[CurvePoint], console: Console
) -> None:
    """predictions.jsonl, metrics.json, report.md + plots; prints the comparison."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "predictions.jsonl", "w", encoding="utf-8") as fh:
        for record in run.records:
            fh.write(json.dumps(record) + "\n")
    metrics = run_metrics(run, cfg, curve)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    show_run(out, metrics, console)
