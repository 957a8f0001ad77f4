"""`fortap check-model DIR`: re-score a saved model folder and compare with its metrics.json.

The folder's `model.json` names its task (`tasks.model_folder`); the task's `check` entry point
re-scores it on the data its metrics name (relative to the repository, e.g.
`../shared/data/saus_ctc`) or on `tables`, and each metric must lie within
`model_folder.TOLERANCE` of the stored value.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from fortap.errors import FortapError
from fortap.tasks.encoder_check import check_encoder, is_encoder_folder
from fortap.tasks.model_folder import MODEL_JSON, folder_task
from fortap.tasks.registry import task


def run_check_model(
    folder: Path, tables: Sequence[Path] = (), json_path: Path | None = None,
    console: Console | None = None,
) -> bool:  # fmt: skip
    """Print the comparison (and write it as JSON); True when every target is met."""
    console = console or Console()
    if not folder.is_dir():
        raise FortapError(f"check-model {folder}: no such folder")
    if not (folder / MODEL_JSON).is_file() and is_encoder_folder(folder):
        console.print(f"{folder}: an encoder; reading its weights against its card")
        report = check_encoder(folder)
    else:
        name = folder_task(folder)
        found = task(name)
        if found.check is None:
            raise FortapError(f"check-model {folder}: the {name} task has no check")
        console.print(f"{folder}: a {name} model; re-scoring it (a few minutes on 2 cores)")
        report = found.check(folder, list(tables))
    if report.what:
        console.print(f"re-scored: {report.what}")
    view = RichTable(title=f"{folder}: stored metrics against a new scoring", title_justify="left")
    for head in ("metric", "stored", "now", "diff"):
        view.add_column(head, justify="left" if head == "metric" else "right")
    for r in report.rows:
        view.add_row(r["metric"], f"{r['stored']:.4f}", f"{r['now']:.4f}", f"{r['diff']:+.4f}")
    if report.rows:
        console.print(view)
    for t in report.targets():
        console.print(f"{'met' if t['met'] else 'NOT MET'}: {t['name']}: {t['value']:+.4f}")
    if json_path is not None:
        payload = {"results": report.rows, "targets": report.targets()}
        if report.what:
            payload["rescored"] = report.what
        json_path.write_text(json.dumps(payload, indent=1) + "\n")
    return report.passed
