"""`fortap check-model DIR`: re-score a saved model folder and compare with its metrics.json.

The folder's `model.json` names its task (`tasks.model_folder`). Where the task has a quick
check (`Task.check_sample`) and the folder stores its sample's scores (metrics.json's
`model_folder.SAMPLE` record), the check re-scores that sample: minutes at most on 2 cores.
`--full` re-scores everything the metrics name (the task's `check`, on the data its metrics name,
e.g. `../shared/data/hitab`, or on `tables`); `--store-sample` runs the full check and, when it
passes, stores the sample's scores for later quick checks. Each metric must lie within
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
from fortap.tasks.folders import declared
from fortap.tasks.model_folder import (
    MODEL_JSON,
    CheckReport,
    folder_task,
    store_sample,
    stored_sample,
)
from fortap.tasks.registry import task


def run_check_model(
    folder: Path, tables: Sequence[Path] = (), json_path: Path | None = None,
    console: Console | None = None, full: bool = False, store: bool = False,
) -> bool:  # fmt: skip
    """Print the comparison (and write it as JSON); True when every target is met."""
    console = console or Console()
    if not folder.is_dir():
        raise FortapError(f"check-model {folder}: no such folder")
    if not (folder / MODEL_JSON).is_file() and is_encoder_folder(folder):
        console.print(f"{folder}: an encoder; reading its weights against its card")
        report = check_encoder(folder)
    else:
        report = _check_task(folder, list(tables), full or store, store, console)
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


def _check_task(folder: Path, tables: list[Path], full: bool, store: bool,
                console: Console) -> CheckReport:  # fmt: skip
    name = folder_task(folder)
    found = task(name)
    declared(folder, found)  # a kind its task loads, with every file that kind holds
    if found.check is None:
        raise FortapError(f"check-model {folder}: the {name} task has no check")
    sample = stored_sample(folder) if found.check_sample is not None else None
    if store and found.check_sample is None:
        raise FortapError(f"check-model {folder}: the {name} task has no quick check to store; "
                          "its full check is already its check")  # fmt: skip
    if sample is not None and not full:
        console.print(f"{folder}: a {name} model; re-scoring its stored sample ({sample['sample']})"
                      f"; the full check: fortap check-model {folder} --full")  # fmt: skip
        what, now = found.check_sample(folder, tables)
        if what != sample["sample"]:
            raise FortapError(f"check-model {folder}: it stores scores of {sample['sample']!r}, "
                              f"this fortap scores {what!r}; run with --store-sample")  # fmt: skip
        return CheckReport.of(sample["scores"], now, list(sample["scores"]), what=what)
    console.print(f"{folder}: a {name} model; re-scoring it in full (minutes on 2 cores)")
    report = found.check(folder, tables)
    if store:
        if not report.passed:
            raise FortapError(f"check-model {folder}: the full check failed, so no sample is "
                              "stored")  # fmt: skip
        what, now = found.check_sample(folder, tables)
        store_sample(folder, what, now)
        console.print(f"stored the quick check's scores of {what}: "
                      + ", ".join(f"{k} {v:.4f}" for k, v in now.items()))  # fmt: skip
    return report
