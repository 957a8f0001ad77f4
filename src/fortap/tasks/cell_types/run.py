"""`fortap finetune cell-types` and `fortap evaluate cell-types`.

`model.kind=boosted` goes to `boosted_run` (LightGBM on the extracted features, no windows);
otherwise `run_finetune` reads SAUS (`saus.read_saus`), holds out fold `data.fold` of the shipped folds
(`split`), cuts every sheet into windows (`examples`), fine-tunes an encoder (`random`,
`minilm`, or a pretraining run's encoder folder as `tuta`/`fortap`) with a new linear head on
the other four folds through the shared loop (`finetune.py`; `OUT/training/` holds its
checkpoints and `metrics.jsonl`, and a rerun of the same command resumes there), saves the
model in `OUT/model/` and scores the held-out fold. `run_evaluate` scores a saved model on a
fold. Both write `OUT/metrics.json`: the pooled scores (macro-F1, per-class F1, confusion
matrix), their file-resampling intervals, each file's confusion matrix (so benches can pair
systems file by file) and the config; and print the scores.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from rich.console import Console

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import FortapError
from fortap.tasks import model_folder
from fortap.tasks.cell_types.boosted_run import check_boosted, evaluate_boosted, run_boosted
from fortap.tasks.cell_types.boosted_typer import KIND as BOOSTED
from fortap.tasks.cell_types.config import HYBRID, CellTypesRunConfig, CTData, CTEvaluation
from fortap.tasks.cell_types.examples import score_sheet, table_windows
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.metrics import confusion, file_interval, scores
from fortap.tasks.cell_types.saus import SausSheet, read_saus, saus_folder
from fortap.tasks.cell_types.split import fold_sides, load_folds
from fortap.tasks.recipe import start_encoder
from fortap.tasks.run_config import config_dict, finetune_command

METRICS = "metrics.json"


def load_fold(paths: Sequence[str | Path], cfg: CellTypesRunConfig):
    """(train sheets, test sheets) of the run's fold, from the one SAUS folder in `paths`."""
    sheets = read_saus(saus_folder(paths))
    return fold_sides(sheets, load_folds(cfg.data.folds), cfg.data.fold)


def windows_of(sheets: Sequence[SausSheet], tokenizer, inputs: SerializeConfig) -> list[list]:
    """The windows of each sheet, with their labels."""
    return [table_windows(s.table(), tokenizer, inputs, s.labels, s.key) for s in sheets]


def score_fold(model, sheets: Sequence[SausSheet], windows: list[list], batch_size: int):
    """({file: (K, K) confusion}, labelled cells no window showed) of `model` on `sheets`."""
    from fortap.tasks.cell_types.predict import predict_windows

    files: dict[str, np.ndarray] = {}
    unshown = 0
    for sheet, wins in zip(sheets, windows, strict=True):
        scored = score_sheet(sheet.labels, wins, predict_windows(model, wins, batch_size))
        conf = confusion(scored.gold, scored.predicted)
        files[sheet.file] = files.get(sheet.file, 0) + conf
        unshown += scored.unshown
    return files, unshown


def run_finetune(paths, out, cfg: CellTypesRunConfig | None = None,
                 console: Console | None = None, stop_at: int | None = None):  # fmt: skip
    """Fine-tune on four folds and score the fifth (see module doc); None when stopped early."""
    cfg, console, out = cfg or CellTypesRunConfig(), console or Console(), Path(out)
    if cfg.model.kind == BOOSTED:
        return run_boosted(paths, out, cfg, console)
    if cfg.model.kind == HYBRID:
        from fortap.tasks.cell_types.hybrid_run import run_hybrid  # torch, for this kind

        return run_hybrid(paths, out, cfg, console)
    import torch

    from fortap.tasks.cell_types.checkpoint import save_cell_type_model
    from fortap.tasks.cell_types.finetune import finetune_cell_types
    from fortap.text.tokenizer import Tokenizer

    torch.set_flush_denormal(True)
    train, test = load_fold(paths, cfg)
    tokenizer, inputs = Tokenizer(), cfg.data.serialize()
    train_windows = [w for ws in windows_of(train, tokenizer, inputs) for w in ws]
    console.print(f"fold {cfg.data.fold}: {len(train)} training sheets ({len(train_windows)} "
                  f"windows), {len(test)} test sheets; encoder {cfg.encoder.name}")  # fmt: skip
    encoder = start_encoder(cfg.encoder, cfg.training, tokenizer.vocab_size)
    started = time.perf_counter()
    model, result = finetune_cell_types(train_windows, encoder, cfg, out / "training", stop_at)
    seconds = time.perf_counter() - started
    if result.step < cfg.training.steps:
        return None  # stopped early: the checkpoint is there to resume from
    save_cell_type_model(model, out / "model", inputs)
    notes = {"train_seconds_this_process": seconds, "train_windows": len(train_windows),
             "resumed_from": str(result.resumed_from or "")}  # fmt: skip
    record = write_scores(out, model, test, tokenizer, inputs, cfg, console, notes)
    write_model_metrics(out / "model", paths[0], record, cfg)
    return record


def write_model_metrics(folder: Path, data, record: dict, cfg: CellTypesRunConfig) -> None:
    """The model folder's metrics.json (its scores on the held-out fold, and the data and fold
    they were measured on) and its card."""
    name = model_folder.data_name(data)
    s = record["scores"]
    mine = {"data": name, "fold": record["fold"], "folds": record["config"]["data"]["folds"],
            "scores": {k: s[k] for k in ("macro_f1", "derived_f1", "cells")}}  # fmt: skip
    model_folder.write_metrics(folder, mine)
    lines = [f"Metrics on held-out fold {record['fold']} ({s['cells']} cells): macro-F1 "
             f"{s['macro_f1']:.3f}, derived F1 {s['derived_f1']:.3f}."]  # fmt: skip
    model_folder.write_card(
        folder,
        "Cell types on SAUS",
        name,
        finetune_command("cell-types", name, cfg),
        lines,
    )


def check_folder(folder: Path, tables: Sequence[str | Path] = ()) -> model_folder.CheckReport:
    """`fortap check-model` for a cell-type folder: its held-out fold scored again (SAUS from
    the folder its metrics name, or `tables`)."""
    import tempfile

    if model_folder.folder_kind(folder) == BOOSTED:
        return check_boosted(folder, tables)
    if model_folder.folder_kind(folder) == HYBRID:
        raise FortapError(f"{folder}: check-model does not re-score a hybrid folder yet; its "
                          "card's command measures the recipe again")  # fmt: skip
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
        raise FortapError(f"{cfg.evaluation.model}: evaluate does not score a hybrid folder yet; "
                          "finetune with data.fold=K measures one fold")  # fmt: skip
    torch.set_flush_denormal(True)
    model, inputs = load_cell_type_model(cfg.evaluation.model)
    _, test = load_fold(paths, cfg)
    return write_scores(Path(out), model, test, Tokenizer(), inputs, cfg, console, {})


def write_scores(out: Path, model, test, tokenizer, inputs, cfg, console, notes) -> dict:
    """Score `test`, write `out/metrics.json`, print the scores; returns the written record."""
    windows = windows_of(test, tokenizer, inputs)
    files, unshown = score_fold(model, test, windows, cfg.evaluation.batch_size)
    pooled = sum(files.values())
    record = {"system": cfg.encoder.name, "fold": cfg.data.fold, "scores": scores(pooled),
              "interval": file_interval([files], cfg.evaluation.rounds),
              "files": {f: c.tolist() for f, c in sorted(files.items())}, "unshown": unshown,
              "steps": cfg.training.steps, "notes": notes, "config": config_dict(cfg)}  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    (out / METRICS).write_text(json.dumps(record, indent=1) + "\n")
    s, iv = record["scores"], record["interval"]
    console.print(f"fold {cfg.data.fold}, {s['cells']} cells of {len(files)} files: macro-F1 "
                  f"{s['macro_f1']:.3f} [{iv['macro_f1'][0]:.3f}, {iv['macro_f1'][1]:.3f}], "
                  f"derived F1 {s['derived_f1']:.3f} [{iv['derived_f1'][0]:.3f}, "
                  f"{iv['derived_f1'][1]:.3f}]")  # fmt: skip
    console.print("per class: " + ", ".join(f"{c} {s['per_class'][c]:.3f}" for c in CELL_TYPES))
    return record
