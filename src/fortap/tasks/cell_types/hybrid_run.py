"""`fortap finetune cell-types --set model.kind=hybrid --encoder NAME`: the hybrid on SAUS.

`run_hybrid(paths, out, cfg)` reads SAUS and each labelled sheet's extracted features once
(`feature_models.labelled_features`), encodes every sheet once with the frozen encoder NAME
(`states.sheet_states`; a shipped encoder or MiniLM, so the folder can name it), and on each
held-out fold: chooses the head's setting and rounds on the inner split of the training files
with the features alone (`boosted.choose`, the boosted model's own choice), fits the
reduction and the booster on the training folds (`hybrid.fit_hybrid`), and types the fold.
`bench/cell_types.py --hybrid NAME --hybrid-head boosted` measures the same recipe (its `-fx`
rows). With `data.all_folds` the saved model is a sixth fit, on every sheet, as for
`model.kind=boosted` (`boosted_run`).

`OUT/model` (`hybrid_typer`) gets the booster, the components, metrics.json (the held-out
numbers) and a card; `OUT/metrics.json` adds each held-out file's confusion per fold.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from rich.console import Console

from fortap.tasks import model_folder
from fortap.tasks.cell_types.boosted import choose
from fortap.tasks.cell_types.boosted_run import run_record
from fortap.tasks.cell_types.config import CellTypesRunConfig
from fortap.tasks.cell_types.feature_models import labelled_features
from fortap.tasks.cell_types.hybrid import STATE_DIMS, fit_hybrid, hybrid_data
from fortap.tasks.cell_types.hybrid_typer import HybridTyper, frozen_encoder
from fortap.tasks.cell_types.metrics import confusion, scores
from fortap.tasks.cell_types.saus import read_saus, saus_folder
from fortap.tasks.cell_types.split import fold_sides, load_folds
from fortap.tasks.cell_types.states import sheet_states
from fortap.tasks.run_config import finetune_command


def run_hybrid(paths, out, cfg: CellTypesRunConfig, console: Console | None = None) -> dict:
    """Measure the hybrid recipe on the held-out fold(s) and save the model (module doc)."""
    from fortap.text.tokenizer import Tokenizer

    console, out = console or Console(), Path(out)
    seed, jobs = cfg.training.seed, cfg.training.threads or 1
    sheets = read_saus(saus_folder(paths))
    data = {s.key: labelled_features(s) for s in sheets}
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
        choice = choose(train, data, seed, jobs)
        reduction, booster = fit_hybrid(train, data, states, choice, STATE_DIMS, seed, jobs)
        by_fold.append(fold_files(booster, reduction, test, data, states))
        choices.append({"setting": choice.setting, "rounds": choice.rounds})
        console.print(f"fold {k}: macro-F1 {scores(sum(by_fold[-1].values()))['macro_f1']:.3f}")
    if cfg.data.all_folds:  # the saved model: a sixth fit, on every sheet
        choice = choose(list(sheets), data, seed, jobs)
        reduction, booster = fit_hybrid(list(sheets), data, states, choice, STATE_DIMS, seed, jobs)
    info = {"encoder": cfg.encoder.name, "seed": seed, "setting": choice.setting,
            "rounds": choice.rounds}  # fmt: skip
    HybridTyper(booster, reduction, encoder, inputs, info).save(out / "model")
    record = run_record(f"hybrid {cfg.encoder.name}", by_fold, held, choices, cfg, out)
    write_card(out / "model", paths[0], record, cfg)
    numbers = record["held_out"]
    iv = numbers["interval"]
    console.print(f"held out: macro-F1 {numbers['macro_f1']:.3f} [{iv['macro_f1'][0]:.3f}, "
                  f"{iv['macro_f1'][1]:.3f}], derived F1 {numbers['derived_f1']:.3f}")  # fmt: skip
    return record


def fold_files(booster, reduction, test, data, states) -> dict[str, np.ndarray]:
    """Each held-out file's (K, K) confusion of the hybrid."""
    joined, _ = hybrid_data({s.key: data[s.key] for s in test}, states, reduction)
    files: dict[str, np.ndarray] = {}
    for s in test:
        x, gold = joined[s.key]
        files[s.file] = files.get(s.file, 0) + confusion(gold, booster.predict(x).argmax(1))
    return files


def write_card(folder: Path, data, record: dict, cfg: CellTypesRunConfig) -> None:
    """The folder's metrics.json (its held-out numbers) and its card."""
    name, h = model_folder.data_name(data), record["held_out"]
    model_folder.write_metrics(folder, {"data": name, "kind": "hybrid", "folds": cfg.data.folds,
                                        "fold": record["fold"], "held_out": h})  # fmt: skip
    lo, hi = h["interval"]["macro_f1"]
    lines = [f"Kind: hybrid. LightGBM over the sheet's features and {STATE_DIMS} principal "
             f"components of the frozen `{cfg.encoder.name}` encoder's cell states.", "",
             f"Held out ({len(h['folds'])} folds): macro-F1 {h['macro_f1']:.3f} [{lo:.3f}, "
             f"{hi:.3f}], derived F1 {h['derived_f1']:.3f}."]  # fmt: skip
    model_folder.write_card(folder, "Cell types on SAUS: hybrid", name,
                            finetune_command("cell-types", name, cfg), lines)  # fmt: skip
