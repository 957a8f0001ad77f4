"""The formula-audit task's registry entry (`TASK`): its score weights fitted, and evaluation.

`fortap finetune formula-audit KEY... -o OUT` fits the weights `fortap audit` scores its
findings with on an answer key (`refit.finetune`: OUT/weights.json, with findings.jsonl,
metrics.json and a README.md card); the shipped `weights.json` is what it fits on the TASI key
with one ranker per half (`bench/audit.py` checks that the two agree within 1e-6).

`fortap evaluate formula-audit FOLDER... -o OUT` scores `fortap audit` on the answer keys found
in the folders given: the TASI key (a folder holding `keys.TASI_FILE`: thresholds set on one
half of its books and reported on the other, beside the seven checkers) and ExceLint's (a
folder holding `keys.EXCELINT_FILE`, at the threshold set on the TASI half a book is not in, or
`FormulaAuditConfig.thresholds` without TASI). It writes `metrics.json` and `report.md` into OUT.
The ranker is the shipped one unless `--ranker` names another; the shipped one saw the training
side of these books, so `bench/audit.py` trains one per half instead. The shipped score weights
were fitted on all of TASI too, so its TASI numbers here are not held out (the bench's are).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fortap.audit.auditor import AuditConfig
from fortap.audit.evaluate import audit_key, excelint_metrics, tasi_metrics
from fortap.audit.keys import EXCELINT_FILE, TASI_FILE, excelint_key, tasi_key
from fortap.audit.measure import HALVES, half_of
from fortap.audit.refit import FitConfig, finetune
from fortap.audit.score import default_thresholds
from fortap.console import stdout_console
from fortap.errors import FortapError
from fortap.tasks.base import Task


@dataclass(frozen=True)
class FormulaAuditConfig:
    """What `evaluate` audits with (the top-level fields) and what `finetune` fits with (`fit`)."""

    ranker: Path | None = None  # ranker folder; None = the shipped one
    max_checks: int = 100_000  # evaluate: typed numbers per workbook checked with candidates (all)
    # ExceLint's thresholds when no TASI key is given (default: those fitted with the weights)
    thresholds: dict[str, float] = field(default_factory=default_thresholds)
    fit: FitConfig = field(default_factory=FitConfig)  # finetune: the weights' fit


def evaluate(paths: Sequence[str | Path], out: str | Path, cfg: FormulaAuditConfig) -> dict:
    """Metrics of every key found under `paths`, written to OUT/metrics.json and report.md."""
    folders = [Path(p) for p in paths]
    tasi = [p for p in folders if (p / TASI_FILE).is_file()]
    excelint = [p for p in folders if (p / EXCELINT_FILE).is_file()]
    if not tasi and not excelint:
        raise FortapError(f"formula-audit: no answer key ({TASI_FILE} or {EXCELINT_FILE}) in "
                          f"{', '.join(map(str, folders))}")  # fmt: skip
    audit_cfg = AuditConfig(max_checks=cfg.max_checks, check_seconds=0.0)
    ranker = lambda book: cfg.ranker  # noqa: E731
    metrics: dict = {"ranker": str(cfg.ranker or "shipped")}
    cut = {h: dict(cfg.thresholds) for h in HALVES}
    if tasi:
        key = tasi_key(tasi[0])
        metrics["tasi"] = tasi_metrics(key, audit_key(key, audit_cfg, ranker).found)
        sets = metrics["tasi"]["thresholds_set_on"]
        cut = {h: sets[HALVES[1 - HALVES.index(h)]] for h in HALVES}
    if excelint:
        key = excelint_key(excelint[0])
        run = audit_key(key, audit_cfg, ranker)
        metrics["excelint"] = excelint_metrics(key, run, lambda book: cut[half_of(book)])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    (out / "report.md").write_text("\n".join(report_lines(metrics)) + "\n")
    stdout_console().print("\n".join(report_lines(metrics)), highlight=False)
    return metrics


def report_lines(metrics: dict) -> list[str]:
    """The metrics as markdown tables."""
    lines = [f"# formula-audit (ranker: {metrics['ranker']})", ""]
    if "tasi" in metrics:
        lines += ["## TASI, held-out halves", "", "| who | P | R | F1 |", "|---|---|---|---|"]
        held = metrics["tasi"]["held-out"]
        rows = [("fortap audit", held["audit"]), *held["checkers"].items()]
        lines += [f"| {who} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} |"
                  for who, s in rows]  # fmt: skip
        lines.append("")
    if "excelint" in metrics:
        lines += ["## ExceLint's cells", "", "| cells | P | R |", "|---|---|---|"]
        lines += [f"| {part} | {metrics['excelint'][part]['precision']:.3f} | "
                  f"{metrics['excelint'][part]['recall']:.3f} |"
                  for part in ("all", "formula", "typed")]  # fmt: skip
    return lines


TASK = Task(
    name="formula-audit",
    summary="find typed numbers where a formula should be and formulas unlike their block",
    config=FormulaAuditConfig,
    shorthands={"ranker": "ranker"},
    finetune=finetune,
    evaluate=evaluate,
)
