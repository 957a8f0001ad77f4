"""`fortap finetune cell-types --set model.kind=boosted`: LightGBM on the extracted features.

`BoostedFinetune` is its part of the one fine-tuning run (`fortap.tasks.run.run`), a task that
trains without the loop (`fit`). It reads SAUS and each labelled sheet's extracted features once
(`feature_models.labelled_features`: the sheet as a reader gives its source file). With
`data.fold=K` it fits `boosted.fit_chosen` (settings and rounds chosen on an inner split of the
training files, never on the scored fold) on the four other folds and scores fold K. With
`data.all_folds` it measures that same recipe on each of the five folds first, each fold scored
by a model fitted without it, then fits the model it saves on every sheet, its settings chosen
on an inner split of all of them: the five-fold numbers describe the recipe, and the saved
booster is its sixth fit. It reads no encoder, optimiser or loop setting, and refuses them by
name (`IGNORED`).

`OUT/model` (`boosted_typer`) gets `metrics.json`: the held-out numbers (one fold, or five and
their mean, with file-resampling intervals), and the saved booster's scores on its own training
sheets, which `check_boosted` (`fortap check-model`) scores again from the stored booster in
well under a minute (the held-out numbers need the fits again: the card's command). The card
gives the command. `OUT/metrics.json` adds each held-out file's confusion matrix per fold and
the config, as an encoder run's report does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fortap.errors import FortapError
from fortap.tasks import model_folder
from fortap.tasks.cell_types.boosted import Choice, fit_chosen, predict
from fortap.tasks.cell_types.boosted_typer import BOOSTER, BoostedTyper
from fortap.tasks.cell_types.boosted_typer import KIND as BOOSTED_KIND
from fortap.tasks.cell_types.config import FIT_IGNORES, CellTypesRunConfig
from fortap.tasks.cell_types.feature_models import Labelled, labelled_features
from fortap.tasks.cell_types.features import FEATURE_NAMES, CellFeatures
from fortap.tasks.cell_types.formula_set import capped
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.metrics import confusion, file_interval, scores
from fortap.tasks.cell_types.saus import SausSheet, read_saus, saus_folder
from fortap.tasks.cell_types.split import fold_sides, load_folds
from fortap.tasks.run_config import config_dict
from fortap.tasks.task_run import Card, RunData, Scored, TaskRun, Trained

Files = dict[str, np.ndarray]  # {file: (K, K) confusion}
CHECKED = ("macro_f1", "derived_f1")
MOVED = 0.001  # share of the training cells whose type may differ from the stored matrix's
# what a fit without the loop never reads (`TaskRun.ignores`)
IGNORED = (*FIT_IGNORES, "data.max_seq_len")


def file_confusions(booster, sheets: Sequence[SausSheet], data: Mapping[str, Labelled]) -> Files:
    """Each file's confusion matrix of `booster` over the labelled cells of `sheets`."""
    files: Files = {}
    for s in sheets:
        values, gold = data[s.key]
        predicted = predict(booster, CellFeatures(FEATURE_NAMES, (), values))
        files[s.file] = files.get(s.file, 0) + confusion(gold, predicted)
    return files


def held_out(by_fold: Sequence[Files], folds: Sequence[int], choices: Sequence[dict],
             rounds: int) -> dict:  # fmt: skip
    """The held-out numbers: each fold's pooled scores, their mean and its interval."""
    per = [scores(sum(files.values())) for files in by_fold]
    rows = [{"fold": k, **{m: s[m] for m in (*CHECKED, "cells")}, **c}
            for k, s, c in zip(folds, per, choices, strict=True)]  # fmt: skip
    mean = {m: float(np.mean([s[m] for s in per])) for m in CHECKED}
    return {"folds": list(folds), **mean, "cells": sum(s["cells"] for s in per),
            "interval": file_interval(by_fold, rounds), "per_fold": rows}  # fmt: skip


def fit_folds(sheets: Sequence[SausSheet], data: Mapping[str, Labelled], held: Sequence[int],
              cfg: CellTypesRunConfig, seed: int, console: Console,
              extra: Sequence[SausSheet] = ()):  # fmt: skip
    """Each held-out fold typed by a booster fitted on the other folds (and `extra`, the
    formula-labelled set's training tables): ([files per fold], [choice per fold], the last
    fold's (training sheets, booster, choice))."""
    folds = load_folds(cfg.data.folds)
    by_fold, choices = [], []
    for k in held:
        started = time.perf_counter()
        train, test = fold_sides(sheets, folds, k)
        booster, choice = fit_chosen([*train, *extra], data, seed, cfg.training.threads)
        by_fold.append(file_confusions(booster, test, data))
        choices.append({"setting": choice.setting, "rounds": choice.rounds})
        s = scores(sum(by_fold[-1].values()))
        console.print(f"fold {k}: {len(train)} training sheets, {len(test)} test sheets: macro-F1 "
                      f"{s['macro_f1']:.3f}, derived F1 {s['derived_f1']:.3f} ({choices[-1]}, "
                      f"{time.perf_counter() - started:.0f} s)")  # fmt: skip
    return by_fold, choices, (train, booster, choice)


@dataclass(frozen=True)
class BoostedFit:
    """What the fits left: the booster to save and the held-out measurements."""

    booster: Any  # lightgbm.Booster (once saved: as the folder holds it)
    choice: Choice  # its setting and rounds
    train: list[SausSheet]  # the SAUS sheets it was fitted on (what check-model scores again)
    by_fold: list[Files]  # each held-out fold's file confusions
    choices: list[dict]  # each held-out fold's setting and rounds
    held: list[int]  # the held-out folds
    formulas: dict = field(default_factory=dict)  # the set's split -> (file confusions,
    # {file: source})
    extra: int = 0  # the formula-labelled tables it was also fitted on


class BoostedFinetune(TaskRun):
    """Cell types' `TaskRun` for the boosted kind (module doc)."""

    name, kind = "cell-types", BOOSTED_KIND
    ignores, ignores_why = IGNORED, "LightGBM fits without the training loop or an encoder"

    def __init__(self, cfg: CellTypesRunConfig) -> None:
        self.cfg = cfg
        self.formulas: dict[str, list[SausSheet]] = {}  # the set's sides (`formula_sides`)

    def examples(self, paths: Sequence[str | Path], console: Console) -> RunData:
        sheets = read_saus(saus_folder(paths))
        self.formulas = formula_sides(self.cfg)
        every = [*sheets, *(s for side in self.formulas.values() for s in side)]
        if self.formulas:
            console.print("formula-labelled set: " + ", ".join(
                f"{k} {len(v)} tables" for k, v in self.formulas.items()))  # fmt: skip
        return RunData(sheets, held={s.key: labelled_features(s) for s in every})

    def fit(self, data: RunData, seed: int, console: Console) -> BoostedFit:
        cfg, sheets = self.cfg, list(data.train)
        extra = self.formulas.get("train", [])
        folds = len(load_folds(cfg.data.folds))
        held = list(range(folds)) if cfg.data.all_folds else [cfg.data.fold]
        by_fold, choices, (train, booster, choice) = fit_folds(sheets, data.held, held, cfg, seed,
                                                                console, extra)  # fmt: skip
        if cfg.data.all_folds:  # the saved booster: a sixth fit, on every sheet
            train = sheets
            booster, choice = fit_chosen([*train, *extra], data.held, seed, cfg.training.threads)
        scored = {split: (file_confusions(booster, side, data.held),
                          {s.file: s.source for s in side})
                  for split, side in self.formulas.items() if split != "train"}  # fmt: skip
        return BoostedFit(booster, choice, train, by_fold, choices, held, scored, len(extra))

    def save(self, fit: BoostedFit, folder: Path) -> BoostedFit:
        info = {"setting": fit.choice.setting, "rounds": fit.choice.rounds}
        BoostedTyper(fit.booster, info).save(folder)
        return replace(fit, booster=BoostedTyper.load(folder).booster)  # scored as stored

    def predict(self, fit: BoostedFit, data: RunData) -> Files:
        return file_confusions(fit.booster, fit.train, data.held)

    def score(self, predicted: Files, trained: Trained, data: RunData) -> Scored:
        fit, cfg = trained.model, self.cfg
        on_train = {**scores(sum(predicted.values())), "sheets": len(fit.train)}
        formulas = formula_record(fit, cfg)
        record = run_record("boosted", fit.by_fold, fit.held, fit.choices, cfg,
                            training_set=on_train, **formulas)  # fmt: skip
        keep = ("macro_f1", "derived_f1", "cells", "sheets", "confusion")
        mine = {"kind": "boosted", "folds": cfg.data.folds, "fold": record["fold"],
                "held_out": record["held_out"], "training_set": {k: on_train[k] for k in keep},
                **{k: {s: {m: v[m] for m in (*CHECKED, "cells", "interval", "by_source")}
                       for s, v in f.items()} if k == "formulas" else f
                   for k, f in formulas.items()}}  # fmt: skip
        title = "Cell types on SAUS" + (" and workbooks' own formulas" if formulas else "")
        card = Card(f"{title}: LightGBM on sheet features", card_lines(trained.folder, record, cfg))
        return Scored(record, record, None, mine, card, *held_out_headline(record["held_out"]))

    def report(self, out: Path, scored: Scored, console: Console) -> None:
        for split, v in scored.value.get("formulas", {}).items():
            console.print(f"formula-labelled {split}: macro-F1 {v['macro_f1']:.3f}, derived F1 "
                          f"{v['derived_f1']:.3f} ({v['cells']} cells)")  # fmt: skip
        numbers, on_train = scored.value["held_out"], scored.value["training_set"]
        held, iv = numbers["folds"], numbers["interval"]
        console.print(f"held out ({len(held)} fold{'s' * (len(held) > 1)}): macro-F1 "
                      f"{numbers['macro_f1']:.3f} [{iv['macro_f1'][0]:.3f}, {iv['macro_f1'][1]:.3f}], "
                      f"derived F1 {numbers['derived_f1']:.3f}; the saved booster on its "
                      f"{on_train['sheets']} training sheets: macro-F1 {on_train['macro_f1']:.3f}")  # fmt: skip


def formula_sides(cfg: CellTypesRunConfig) -> dict[str, list[SausSheet]]:
    """The formula-labelled set's sides a run reads (none without `data.formulas`): its train
    split capped per source (`formula_set.capped`), its dev split, and its test split with
    `evaluation.formulas_test`."""
    if not cfg.data.formulas:
        return {}
    root = Path(cfg.data.formulas)
    splits = ("train", "dev", "test") if cfg.evaluation.formulas_test else ("train", "dev")
    sides = {split: read_saus(root / split) for split in splits}
    sides["train"] = capped(sides["train"], cfg.data.formulas_cap, cfg.training.seed)
    return sides


def formula_record(fit: BoostedFit, cfg: CellTypesRunConfig) -> dict:
    """`{"formulas": {split: scores, interval, by_source}, "formulas_train": ...}` of a run
    with the formula-labelled set; {} without it."""
    if not fit.formulas:
        return {}
    out = {}
    for split, (files, source_of) in fit.formulas.items():
        pooled = scores(sum(files.values()))
        by_source = {}
        for src in sorted(set(source_of.values())):
            own = scores(sum(c for f, c in files.items() if source_of[f] == src))
            by_source[src] = {"share": own["cells"] / max(pooled["cells"], 1),
                              **{m: own[m] for m in (*CHECKED, "cells")}}  # fmt: skip
        out[split] = {**{m: pooled[m] for m in (*CHECKED, "cells", "per_class")},
                      "interval": file_interval([files], cfg.evaluation.rounds),
                      "by_source": by_source, "sources": dict(sorted(source_of.items())),
                      "files": {f: c.tolist() for f, c in sorted(files.items())}}  # fmt: skip
    return {"formulas": out, "formulas_train": {"set": cfg.data.formulas, "tables": fit.extra,
                                                "cap": cfg.data.formulas_cap}}  # fmt: skip


def run_record(system: str, by_fold: list, held: Sequence[int], choices: list[dict],
               cfg: CellTypesRunConfig, **extra) -> dict:  # fmt: skip
    """A run's record for OUT/metrics.json: its held-out numbers, `extra` such as the
    training-set scores, each held-out file's confusion per fold, the config."""
    return {"system": system, "fold": "all" if cfg.data.all_folds else cfg.data.fold,
            "held_out": held_out(by_fold, held, choices, cfg.evaluation.rounds), **extra,
            "files_by_fold": [{f: c.tolist() for f, c in sorted(files.items())} for files in by_fold],
            "config": config_dict(cfg)}  # fmt: skip


def held_out_headline(held: dict) -> tuple[str, dict[str, float]]:
    """A feature model's `Scored.split` and `headline`: its held-out folds' mean scores."""
    folds = held["folds"]
    split = (f"SAUS, each of {len(folds)} file-grouped folds held out in turn" if len(folds) > 1
             else f"SAUS fold {folds[0]} held out")  # fmt: skip
    return split, {k: held[k] for k in CHECKED}


def card_lines(folder: Path, record: dict, cfg: CellTypesRunConfig) -> list[str]:
    """The card's account of the booster, its training side and its numbers."""
    h, t = record["held_out"], record["training_set"]
    typer = BoostedTyper.load(folder)
    setting, size = typer.info["setting"], (folder / BOOSTER).stat().st_size / 1e6
    lo, hi = h["interval"]["macro_f1"]
    dlo, dhi = h["interval"]["derived_f1"]
    per = " ".join(f"{r['macro_f1']:.3f}" for r in h["per_fold"])
    side = "every labelled sheet (all five folds)" if cfg.data.all_folds else (
        f"the four folds other than fold {cfg.data.fold}")  # fmt: skip
    folds = cfg.data.folds or "tasks/cell_types/saus_folds.json"
    return [
        f"Kind: boosted. LightGBM alone on the {len(FEATURE_NAMES)} features fortap computes "
        "from a sheet (`tasks/cell_types/features.py`), no encoder. "
        f"`{BOOSTER}` ({size:.1f} MB) is LightGBM's text format: {typer.booster.num_trees()} "
        f"trees ({typer.info['rounds']} rounds x {len(CELL_TYPES)} classes) of "
        f"{setting['num_leaves']} leaves, at least {setting['min_data_in_leaf']} cells a leaf, "
        "chosen by macro-F1 on an inner split (a quarter of the training files held out).",
        "",
        f"Trained on {side}: {t['sheets']} sheets, {t['cells']:,} labelled cells.",
        "",
        f"Held out ({len(h['folds'])} of the file-grouped folds of `{folds}`, each fold "
        "typed by a model fitted without it, its settings chosen on its own training files): "
        f"macro-F1 {h['macro_f1']:.3f} [{lo:.3f}, {hi:.3f}], derived F1 {h['derived_f1']:.3f} "
        f"[{dlo:.3f}, {dhi:.3f}] (mean over folds, 95 % file-resampling intervals; per fold "
        f"{per}).",
        "",
        *formula_lines(record, cfg),
        f"On its own SAUS training cells (what `fortap check-model` scores again): macro-F1 "
        f"{t['macro_f1']:.3f}, derived F1 {t['derived_f1']:.3f}.",
        "",
        "Use it: `fortap cell-types BOOK [--sheet S] [--json]` (`models/cell-types` when no "
        "`--model` is given).",
    ]  # fmt: skip


def formula_lines(record: dict, cfg: CellTypesRunConfig) -> list[str]:
    """The card's account of the formula-labelled set (none without one): how it was made, what
    was trained on, and the saved booster's scores on its dev (and test) split by source."""
    if "formulas" not in record:
        return []
    made = record["formulas_train"]
    stats = Path(made["set"]) / "stats.json"
    sources = sorted(json.loads(stats.read_text())["sources"]) if stats.is_file() else []
    lines = [f"Also trained on the formula-labelled set (`{made['set']}`: {made['tables']} tables "
             f"of its train split, at most {made['cap']:,} labelled cells a source), made by "
             "`fortap ingest ../shared/data/SOURCE --out ING/SOURCE` for each of "
             f"{', '.join(sources) or 'its sources'}, then `fortap build-cell-types ING/* -o "
             f"{made['set']}` (label rules: `docs/cell-types.md`).", ""]  # fmt: skip
    for split, v in record["formulas"].items():
        dlo, dhi = v["interval"]["derived_f1"]
        per = "; ".join(f"{src} {b['share']:.0%} of the cells, derived F1 {b['derived_f1']:.3f}"
                        for src, b in v["by_source"].items())  # fmt: skip
        lines += [f"On the set's {split} workbooks (never trained on), values only: macro-F1 "
                  f"{v['macro_f1']:.3f}, derived F1 {v['derived_f1']:.3f} [{dlo:.3f}, {dhi:.3f}] "
                  f"({v['cells']:,} cells: {per}).", ""]  # fmt: skip
    return lines


FilesOf = Callable[[Sequence[SausSheet], Mapping[str, Labelled]], Files]  # sheets -> confusions


def evaluate_boosted(paths, out, cfg: CellTypesRunConfig, console: Console | None = None) -> dict:
    """Score the boosted folder of `evaluation.model` on the run's held-out fold (a folder
    trained on every fold has seen it: that is a training-set score)."""
    booster = BoostedTyper.load(cfg.evaluation.model).booster
    return evaluate_fold(paths, out, cfg, "boosted", partial(file_confusions, booster), console)


def evaluate_fold(paths, out, cfg: CellTypesRunConfig, system: str, files_of: FilesOf,
                  console: Console | None = None) -> dict:  # fmt: skip
    """The held-out fold of the run typed by `files_of` (a feature model's confusions per file),
    written to OUT/metrics.json and printed."""
    console, out = console or Console(), Path(out)
    sheets = read_saus(saus_folder(paths))
    _, test = fold_sides(sheets, load_folds(cfg.data.folds), cfg.data.fold)
    files = files_of(test, {s.key: labelled_features(s) for s in test})
    trained_fold = model_folder.read_metrics(cfg.evaluation.model).get("fold")
    seen = trained_fold != cfg.data.fold  # "all", or another fold: this fold was in its training
    record = {"system": system, "fold": cfg.data.fold, "scores": scores(sum(files.values())),
              "interval": file_interval([files], cfg.evaluation.rounds),
              "files": {f: c.tolist() for f, c in sorted(files.items())},
              "seen_in_training": seen, "config": config_dict(cfg)}  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(record, indent=1) + "\n")
    s = record["scores"]
    console.print(f"fold {cfg.data.fold}, {s['cells']} cells of {len(files)} files: macro-F1 "
                  f"{s['macro_f1']:.3f}, derived F1 {s['derived_f1']:.3f}")  # fmt: skip
    if seen:
        console.print(f"note: {cfg.evaluation.model} was trained on this fold (its fold: "
                      f"{trained_fold}), so this is a training-set score; its held-out numbers "
                      "are in its metrics.json")  # fmt: skip
    return record


def check_boosted(folder: Path, tables: Sequence[str | Path] = ()) -> model_folder.CheckReport:
    """`fortap check-model` for a boosted folder: the stored booster scored again on its
    training sheets (SAUS from the folder its metrics name, or `tables`)."""
    booster = BoostedTyper.load(folder).booster
    return check_training_set(folder, tables, "booster", partial(file_confusions, booster))


def check_training_set(folder: Path, tables: Sequence[str | Path], model: str,
                       files_of: FilesOf) -> model_folder.CheckReport:  # fmt: skip
    """A feature model's folder (boosted, hybrid; `model` names it) scored again by `files_of`
    on the training sheets its metrics name, against the training-set scores stored at
    fine-tuning."""
    stored = model_folder.read_metrics(folder)
    if "training_set" not in stored:
        raise FortapError(f"{folder}: its metrics.json has no training-set scores to check against")
    sheets = read_saus(saus_folder(list(tables) or [model_folder.data_path(stored["data"])]))
    if stored["fold"] != "all":
        sheets, _ = fold_sides(sheets, load_folds(stored.get("folds", "")), stored["fold"])
    data = {s.key: labelled_features(s) for s in sheets}
    now = scores(sum(files_of(sheets, data).values()))
    h = stored["held_out"]
    what = (f"the stored {model} on its {len(sheets)} training sheets ({now['cells']} cells); "
            f"its held-out numbers (macro-F1 {h['macro_f1']:.3f}, derived F1 "
            f"{h['derived_f1']:.3f}) need the fits again: the card's command")  # fmt: skip
    names = [f"training-set {m}" for m in CHECKED]
    report = model_folder.CheckReport.of(
        {n: stored["training_set"][m] for n, m in zip(names, CHECKED, strict=True)},
        {n: now[m] for n, m in zip(names, CHECKED, strict=True)},
        names,
        what,
    )
    if "confusion" in stored["training_set"]:  # F1 hides a few cells that changed type
        moved = np.abs(np.asarray(now["confusion"]) - stored["training_set"]["confusion"]).sum()
        share = float(moved / 2 / max(now["cells"], 1))  # each moved cell leaves one entry
        report.extra_targets.append({"name": "training-set cells typed otherwise than stored "
                                     f"(share, at most {MOVED})", "value": share,
                                     "target": MOVED, "met": share <= MOVED})  # fmt: skip
    return report
