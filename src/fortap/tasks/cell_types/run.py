"""`fortap finetune cell-types` and `fortap evaluate cell-types`.

`run_finetune` is the one fine-tuning run (`fortap.tasks.run.run`) with the part of the kind
`model.kind` names: `encoder` (`finetune.CellTypesFinetune`: the four training folds' windows,
an encoder (`random`, `minilm`, a pretraining run's encoder folder as `tuta`/`fortap`, or a
shipped one) with a new linear head trained through the shared loop in `OUT/training/`, where a
rerun of the same command resumes, and the held-out fold scored), `boosted`
(`boosted_run.BoostedFinetune`: LightGBM on the extracted features) or `hybrid`
(`hybrid_run.HybridFinetune`). `run_evaluate` scores a saved model on a fold. Both write
`OUT/metrics.json`: the pooled scores (macro-F1, per-class F1, confusion matrix), their
file-resampling intervals, each file's confusion matrix (so benches can pair systems file by
file) and the config; and print the scores (`fold.py`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from fortap.errors import FortapError
from fortap.tasks import model_folder
from fortap.tasks.cell_types.boosted_run import BoostedFinetune, check_boosted, evaluate_boosted
from fortap.tasks.cell_types.boosted_typer import KIND as BOOSTED
from fortap.tasks.cell_types.config import HYBRID, CellTypesRunConfig, CTData, CTEvaluation
from fortap.tasks.cell_types.finetune import CellTypesFinetune
from fortap.tasks.cell_types.fold import (  # noqa: F401  (windows_of: the benches')
    METRICS,
    fold_record,
    load_fold,
    predict_fold,
    show_fold,
    windows_of,
)
from fortap.tasks.run import run


def run_finetune(paths, out, cfg: CellTypesRunConfig | None = None,
                 console: Console | None = None, stop_at: int | None = None):  # fmt: skip
    """Fine-tune (or fit) the kind `model.kind` names and score it (see module doc); the
    record written to OUT/metrics.json, or None when stopped early."""
    cfg = cfg or CellTypesRunConfig()
    if cfg.model.kind == BOOSTED:
        task = BoostedFinetune(cfg)
    elif cfg.model.kind == HYBRID:
        from fortap.tasks.cell_types.hybrid_run import HybridFinetune  # torch, for this kind

        task = HybridFinetune(cfg)
    else:
        task = CellTypesFinetune(cfg)
    return run(task, paths, out, console, stop_at)


def check_folder(folder: Path, tables: Sequence[str | Path] = ()) -> model_folder.CheckReport:
    """`fortap check-model` for a cell-type folder: its held-out fold scored again (SAUS from
    the folder its metrics name, or `tables`)."""
    import tempfile

    if model_folder.folder_kind(folder) == BOOSTED:
        return check_boosted(folder, tables)
    if model_folder.folder_kind(folder) == HYBRID:
        from fortap.tasks.cell_types.hybrid_run import check_hybrid  # torch, for this kind

        return check_hybrid(folder, tables)
    stored = model_folder.read_metrics(folder)
    if "scores" not in stored:
        raise FortapError(f"{folder}: its metrics.json has no scores to check against")
    data = list(tables) or [model_folder.data_path(stored["data"])]
    cfg = CellTypesRunConfig(data=CTData(fold=stored["fold"], folds=stored.get("folds", "")),
                             evaluation=CTEvaluation(model=str(folder), rounds=1))  # fmt: skip
    with tempfile.TemporaryDirectory() as out:
        now = run_evaluate(data, out, cfg, Console(quiet=True))["scores"]
    names = ("macro_f1", "derived_f1")
    return model_folder.CheckReport.of(stored["scores"], now, names)


def run_evaluate(paths, out, cfg: CellTypesRunConfig | None = None, console: Console | None = None):
    """Score the model of `evaluation.model` on the run's held-out fold."""
    import torch

    from fortap.tasks.cell_types.checkpoint import load_cell_type_model
    from fortap.text.tokenizer import Tokenizer

    cfg, console = cfg or CellTypesRunConfig(), console or Console()
    if not cfg.evaluation.model:
        raise FortapError("evaluate cell-types needs a model folder (--model OUT/model)")
    if model_folder.folder_kind(cfg.evaluation.model) == BOOSTED:
        return evaluate_boosted(paths, out, cfg, console)
    if model_folder.folder_kind(cfg.evaluation.model) == HYBRID:
        from fortap.tasks.cell_types.hybrid_run import evaluate_hybrid  # torch, for this kind

        return evaluate_hybrid(paths, out, cfg, console)
    torch.set_flush_denormal(True)
    model, inputs = load_cell_type_model(cfg.evaluation.model)
    _, test = load_fold(paths, cfg)
    files, unshown = predict_fold(model, test, Tokenizer(), inputs, cfg.evaluation.batch_size)
    record = fold_record(files, unshown, cfg, {})
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / METRICS).write_text(json.dumps(record, indent=1) + "\n")
    show_fold(record, console)
    return record
