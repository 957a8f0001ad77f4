"""Cell types' part of the one fine-tuning run, encoder kind (`CellTypesFinetune`, a `TaskRun`).

What it hands `fortap.tasks.run.run`: the windows of the four training folds (`fold.load_fold`,
`fold.windows_of`), `CellTypeModel` (a linear head over the started encoder, its loss weighted
by class: the weights come from the training windows' labels, so a resumed run computes the
same ones), `ct_batch`, and the held-out fold scored (`fold.predict_fold`, `fold.fold_record`);
the model folder's `metrics.json` holds the held-out scores, which `fortap check-model` scores
again. There are no dev checks: the run ends in its last state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from fortap.encoding.example import Batch, Example
from fortap.encoding.serialize import SerializeConfig
from fortap.tasks.cell_types.checkpoint import save_cell_type_model
from fortap.tasks.cell_types.config import ENCODER, CellTypesRunConfig
from fortap.tasks.cell_types.examples import TARGET, ct_batch
from fortap.tasks.cell_types.fold import fold_record, load_fold, predict_fold, show_fold, windows_of
from fortap.tasks.cell_types.labels import CELL_TYPES, NO_LABEL
from fortap.tasks.cell_types.model import CellTypeModel, class_weights
from fortap.tasks.cell_types.saus import SausSheet
from fortap.tasks.task_run import Card, RunData, Scored, TaskRun, Trained


def label_counts(examples: Sequence[Example]) -> list[int]:
    """Cells of each class over the windows' targets (a repeated header cell once per window)."""
    counts = [0] * len(CELL_TYPES)
    for ex in examples:
        for label in ex.targets[TARGET]["labels"]:
            if label != NO_LABEL:
                counts[label] += 1
    return counts


@dataclass(frozen=True)
class HeldFold:
    """What scoring reads: the held-out sheets and how their windows are cut."""

    test: list[SausSheet]
    tokenizer: object
    inputs: SerializeConfig


class CellTypesFinetune(TaskRun):
    """Cell types' `TaskRun` for a fine-tuned encoder (module doc)."""

    name, kind = "cell-types", ENCODER

    def __init__(self, cfg: CellTypesRunConfig) -> None:
        self.cfg = cfg

    def examples(self, paths: Sequence[str | Path], console: Console) -> RunData:
        from fortap.text.tokenizer import Tokenizer

        cfg = self.cfg
        train, test = load_fold(paths, cfg)
        tokenizer, inputs = Tokenizer(), cfg.data.serialize()
        windows = [w for ws in windows_of(train, tokenizer, inputs) for w in ws]
        note = (f"fold {cfg.data.fold}: {len(train)} training sheets ({len(windows)} windows), "
                f"{len(test)} test sheets; encoder {cfg.encoder.name}")  # fmt: skip
        held = HeldFold(test, tokenizer, inputs)
        return RunData(windows, (), cfg.evaluation.batch_size, tokenizer.vocab_size, held, note)

    def model(self, encoder, data: RunData) -> CellTypeModel:
        weights = class_weights(label_counts(data.train), self.cfg.training.class_power)
        return CellTypeModel(encoder, weights)

    def collate(self, examples: list[Example]) -> Batch:
        return ct_batch(examples)

    def save(self, model: CellTypeModel, folder: Path) -> CellTypeModel:
        save_cell_type_model(model, folder, self.cfg.data.serialize())
        return model

    def predict(self, model: CellTypeModel, data: RunData):
        held = data.held
        return predict_fold(model, held.test, held.tokenizer, held.inputs,
                            self.cfg.evaluation.batch_size)  # fmt: skip

    def score(self, predicted, trained: Trained, data: RunData) -> Scored:
        files, unshown = predicted
        resumed = trained.result.resumed_from if trained.result is not None else None
        notes = {"train_seconds_this_process": trained.seconds, "train_windows": len(data.train),
                 "resumed_from": str(resumed or "")}  # fmt: skip
        record = fold_record(files, unshown, self.cfg, notes)
        s = record["scores"]
        mine = {"fold": record["fold"], "folds": self.cfg.data.folds,
                "scores": {k: s[k] for k in ("macro_f1", "derived_f1", "cells")}}  # fmt: skip
        lines = [f"Metrics on held-out fold {record['fold']} ({s['cells']} cells): macro-F1 "
                 f"{s['macro_f1']:.3f}, derived F1 {s['derived_f1']:.3f}."]  # fmt: skip
        return Scored(record, record, None, mine, Card("Cell types on SAUS", lines),
                      f"SAUS fold {record['fold']} held out",
                      {k: s[k] for k in ("macro_f1", "derived_f1")})  # fmt: skip

    def report(self, out: Path, scored: Scored, console: Console) -> None:
        show_fold(scored.value, console)
