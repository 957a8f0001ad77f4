"""One held-out SAUS fold for an encoder model: its sheets, their windows, the model's scores.

`load_fold` reads SAUS (`saus.read_saus`) and holds out fold `data.fold` of the folds file
(`split`); `windows_of` cuts sheets into windows (`examples`); `score_fold` types every window
and tallies each file's confusion matrix; `fold_record` is `metrics.json`'s record: the pooled
scores (macro-F1, per-class F1, confusion matrix), their file-resampling intervals, each file's
confusion matrix (so benches can pair systems file by file), the notes and the config;
`show_fold` prints it. A fine-tuning run (`finetune.CellTypesFinetune`) and `fortap evaluate
cell-types` both score through these.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from rich.console import Console

from fortap.encoding.serialize import SerializeConfig
from fortap.tasks.cell_types.config import CellTypesRunConfig
from fortap.tasks.cell_types.examples import score_sheet, table_windows
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.metrics import confusion, file_interval, scores
from fortap.tasks.cell_types.saus import SausSheet, read_saus, saus_folder
from fortap.tasks.cell_types.split import fold_sides, load_folds
from fortap.tasks.run_config import config_dict

Files = dict[str, np.ndarray]  # {file: (K, K) confusion}
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

    files: Files = {}
    unshown = 0
    for sheet, wins in zip(sheets, windows, strict=True):
        scored = score_sheet(sheet.labels, wins, predict_windows(model, wins, batch_size))
        conf = confusion(scored.gold, scored.predicted)
        files[sheet.file] = files.get(sheet.file, 0) + conf
        unshown += scored.unshown
    return files, unshown


def predict_fold(model, test: Sequence[SausSheet], tokenizer, inputs: SerializeConfig,
                 batch_size: int) -> tuple[Files, int]:  # fmt: skip
    """`score_fold` on the windows of `test` cut as `inputs` says."""
    return score_fold(model, test, windows_of(test, tokenizer, inputs), batch_size)


def fold_record(files: Files, unshown: int, cfg: CellTypesRunConfig, notes: dict) -> dict:
    """metrics.json's record of a model's files on the held-out fold (module doc)."""
    pooled = sum(files.values())
    return {"system": cfg.encoder.name, "fold": cfg.data.fold, "scores": scores(pooled),
            "interval": file_interval([files], cfg.evaluation.rounds),
            "files": {f: c.tolist() for f, c in sorted(files.items())}, "unshown": unshown,
            "steps": cfg.training.steps, "notes": notes, "config": config_dict(cfg)}  # fmt: skip


def show_fold(record: dict, console: Console) -> None:
    """Print a fold record's scores with their intervals, and each class's F1."""
    s, iv = record["scores"], record["interval"]
    console.print(f"fold {record['fold']}, {s['cells']} cells of {len(record['files'])} files: "
                  f"macro-F1 {s['macro_f1']:.3f} [{iv['macro_f1'][0]:.3f}, "
                  f"{iv['macro_f1'][1]:.3f}], derived F1 {s['derived_f1']:.3f} "
                  f"[{iv['derived_f1'][0]:.3f}, {iv['derived_f1'][1]:.3f}]")  # fmt: skip
    console.print("per class: " + ", ".join(f"{c} {s['per_class'][c]:.3f}" for c in CELL_TYPES))
