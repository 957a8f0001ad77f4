"""`fortap finetune cell-types --set model.kind=hybrid --encoder NAME`: the hybrid on SAUS.

`HybridFinetune` is its part of the one fine-tuning run (`fortap.tasks.run.run`), a task that
trains without the loop (`fit`). It reads SAUS and each labelled sheet's extracted features
once (`feature_models.labelled_features`), encodes every sheet once with the frozen encoder
NAME (`states.sheet_states`; a shipped encoder or MiniLM, so the folder can name it), and on
each held-out fold: chooses the head's setting and rounds on the inner split of the training
files with the features alone (`boosted.choose`, the boosted model's own choice), fits the
reduction and the booster on the training folds (`hybrid.fit_hybrid`), and types the fold.
`bench/cell_types.py --hybrid NAME --hybrid-head boosted` measures the same recipe (its `-fx`
rows). With `data.all_folds` the saved model is a sixth fit, on every sheet, as for
`model.kind=boosted` (`boosted_run`). It reads no optimiser or loop setting, and refuses them
by name (`IGNORED`).

`OUT/model` (`hybrid_typer`) gets the booster, the components, metrics.json (the held-out
numbers, and the saved model's scores on its own training sheets) and a card; `OUT/metrics.json`
adds each held-out file's confusion per fold. `check_hybrid` (`fortap check-model`) encodes the
training sheets again and scores them against the stored numbers, as `boosted_run` does for a
booster; `evaluate_hybrid` (`fortap evaluate cell-types --model M`) scores a fold.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console

from fortap.tasks.cell_types.boosted import choose
from fortap.tasks.cell_types.boosted_run import (
    check_training_set,
    evaluate_fold,
    held_out_headline,
    run_record,
)
from fortap.tasks.cell_types.config import FIT_IGNORES, HYBRID, CellTypesRunConfig
from fortap.tasks.cell_types.feature_models import labelled_features
from fortap.tasks.cell_types.hybrid import STATE_DIMS, fit_hybrid, hybrid_data
from fortap.tasks.cell_types.hybrid_typer import HybridTyper, frozen_encoder
from fortap.tasks.cell_types.metrics import confusion, scores
from fortap.tasks.cell_types.saus import read_saus, saus_folder
from fortap.tasks.cell_types.split import fold_sides, load_folds
from fortap.tasks.cell_types.states import sheet_states
from fortap.tasks.task_run import Card, RunData, Scored, TaskRun, Trained

IGNORED = FIT_IGNORES  # what a fit without the loop never reads (`TaskRun.ignores`)


@dataclass(frozen=True)
class HybridFit:
    """What the fits left: the model to save and the held-out measurements."""

    typer: HybridTyper
    by_fold: list[dict[str, np.ndarray]]  # each held-out fold's file confusions
    choices: list[dict]  # each held-out fold's setting and rounds
    held: list[int]  # the held-out folds
    train: list  # the sheets the saved model was fitted on
    states: dict[str, np.ndarray]  # every sheet's (N, D) cell states, by key


class HybridFinetune(TaskRun):
    """Cell types' `TaskRun` for the hybrid kind (module doc)."""

    name, kind = "cell-types", HYBRID
    ignores, ignores_why = IGNORED, "LightGBM fits over a frozen encoder, without the loop"

    def __init__(self, cfg: CellTypesRunConfig) -> None:
        self.cfg = cfg

    def examples(self, paths: Sequence[str | Path], console: Console) -> RunData:
        sheets = read_saus(saus_folder(paths))
        return RunData(sheets, held={s.key: labelled_features(s) for s in sheets})

    def fit(self, data: RunData, seed: int, console: Console) -> HybridFit:
        from fortap.text.tokenizer import Tokenizer

        cfg, sheets, features = self.cfg, list(data.train), data.held
        jobs = cfg.training.threads or 1
        encoder, inputs = frozen_encoder(cfg.encoder.name, seed), cfg.data.serialize()
        started, tokenizer = time.perf_counter(), Tokenizer()
        states = {s.key: sheet_states(encoder, s, tokenizer, inputs) for s in sheets}
        console.print(f"encoded {len(sheets)} sheets with {cfg.encoder.name} in "
                      f"{time.perf_counter() - started:.0f} s")  # fmt: skip
        folds = load_folds(cfg.data.folds)
        held = list(range(len(folds))) if cfg.data.all_folds else [cfg.data.fold]
        by_fold, choices = [], []
        for k in held:
            train, test = fold_sides(sheets, folds, k)
            choice = choose(train, features, seed, jobs)
            reduction, booster = fit_hybrid(train, features, states, choice, STATE_DIMS, seed, jobs)
            by_fold.append(fold_files(booster, reduction, test, features, states))
            choices.append({"setting": choice.setting, "rounds": choice.rounds})
            console.print(f"fold {k}: macro-F1 {scores(sum(by_fold[-1].values()))['macro_f1']:.3f}")
        train = sheets if cfg.data.all_folds else fold_sides(sheets, folds, cfg.data.fold)[0]
        if cfg.data.all_folds:  # the saved model: a sixth fit, on every sheet
            choice = choose(sheets, features, seed, jobs)
            reduction, booster = fit_hybrid(sheets, features, states, choice, STATE_DIMS, seed,
                                            jobs)  # fmt: skip
        info = {"encoder": cfg.encoder.name, "seed": seed, "setting": choice.setting,
                "rounds": choice.rounds}  # fmt: skip
        typer = HybridTyper(booster, reduction, encoder, inputs, info)
        return HybridFit(typer, by_fold, choices, held, train, states)

    def save(self, fit: HybridFit, folder: Path) -> HybridFit:
        fit.typer.save(folder)
        return fit

    def predict(self, fit: HybridFit, data: RunData) -> dict[str, np.ndarray]:
        """The saved model on its own training sheets (the held-out folds were typed by the
        fits that left them out), which `check_hybrid` scores again."""
        typer = fit.typer
        return fold_files(typer.booster, typer.reduction, fit.train, data.held, fit.states)

    def score(self, predicted: dict, trained: Trained, data: RunData) -> Scored:
        fit, cfg = trained.model, self.cfg
        on_train = {**scores(sum(predicted.values())), "sheets": len(fit.train)}
        record = run_record(f"hybrid {cfg.encoder.name}", fit.by_fold, fit.held, fit.choices, cfg,
                            training_set=on_train)  # fmt: skip
        h = record["held_out"]
        keep = ("macro_f1", "derived_f1", "cells", "sheets", "confusion")
        mine = {"kind": "hybrid", "folds": cfg.data.folds, "fold": record["fold"], "held_out": h,
                "training_set": {k: on_train[k] for k in keep}}  # fmt: skip
        lo, hi = h["interval"]["macro_f1"]
        lines = [f"Kind: hybrid. LightGBM over the sheet's features and {STATE_DIMS} principal "
                 f"components of the frozen `{cfg.encoder.name}` encoder's cell states.", "",
                 f"Held out ({len(h['folds'])} folds): macro-F1 {h['macro_f1']:.3f} [{lo:.3f}, "
                 f"{hi:.3f}], derived F1 {h['derived_f1']:.3f}."]  # fmt: skip
        return Scored(record, record, None, mine, Card("Cell types on SAUS: hybrid", lines),
                      *held_out_headline(h))  # fmt: skip

    def report(self, out: Path, scored: Scored, console: Console) -> None:
        numbers = scored.value["held_out"]
        iv = numbers["interval"]
        console.print(f"held out: macro-F1 {numbers['macro_f1']:.3f} [{iv['macro_f1'][0]:.3f}, "
                      f"{iv['macro_f1'][1]:.3f}], derived F1 {numbers['derived_f1']:.3f}")  # fmt: skip


def typer_files(typer: HybridTyper):
    """`boosted_run.FilesOf` for a loaded hybrid folder: each sheet encoded by its frozen
    encoder, then typed (`fold_files`)."""
    from fortap.text.tokenizer import Tokenizer

    def files_of(sheets, data) -> dict[str, np.ndarray]:
        tokenizer = Tokenizer()
        states = {s.key: sheet_states(typer.encoder, s, tokenizer, typer.inputs) for s in sheets}
        return fold_files(typer.booster, typer.reduction, sheets, data, states)

    return files_of


def check_hybrid(folder: Path, tables: Sequence[str | Path] = ()):
    """`fortap check-model` for a hybrid folder: the stored model scored again on its training
    sheets (each encoded again by the encoder it names), against its stored scores."""
    typer = HybridTyper.load(folder)
    return check_training_set(folder, tables, "hybrid", typer_files(typer))


def evaluate_hybrid(paths, out, cfg: CellTypesRunConfig, console: Console | None = None) -> dict:
    """Score the hybrid folder of `evaluation.model` on the run's held-out fold."""
    typer = HybridTyper.load(cfg.evaluation.model)
    return evaluate_fold(paths, out, cfg, f"hybrid {typer.info.get('encoder')}",
                         typer_files(typer), console)  # fmt: skip


def fold_files(booster, reduction, test, data, states) -> dict[str, np.ndarray]:
    """Each held-out file's (K, K) confusion of the hybrid."""
    joined, _ = hybrid_data({s.key: data[s.key] for s in test}, states, reduction)
    files: dict[str, np.ndarray] = {}
    for s in test:
        x, gold = joined[s.key]
        files[s.file] = files.get(s.file, 0) + confusion(gold, booster.predict(x).argmax(1))
    return files
