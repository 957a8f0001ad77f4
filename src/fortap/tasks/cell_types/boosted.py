"""A gradient-boosted cell-type model (LightGBM) on the extracted features, its settings chosen
on the training side only.

`boosted(train, test, data)` chooses among `SETTINGS` and `ROUNDS` on an inner split of the
training sheets (`choose`): the training files are cut into four groups by `split.make_folds`
(the folds' own rule: files stay whole, groups hold about the same number of cells), the first
group is held out, and each setting is fitted on the other three for the most rounds and
scored on the held-out group after each number of `ROUNDS`. The pair with the best held-out
macro-F1 (pooled, as a fold is scored) wins, and is fitted again on every training sheet. The
scored fold is never looked at before its predictions. Rounds are chosen by macro-F1, not by
the held-out log-loss: across files the log-loss turns up after 20 to 30 rounds, long before
the classes stop separating better.

Every setting weighs each class by the inverse of its frequency (`class_weights`): the small
classes (notes, metadata, derived) count as much in macro-F1 as data does. A fitted booster
stores the feature names it was trained on (`FEATURE_NAMES`), and `predict` asks a
`CellFeatures` for them by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from fortap.tasks.cell_types.feature_models import Labelled, stack
from fortap.tasks.cell_types.features import FEATURE_NAMES, CellFeatures
from fortap.tasks.cell_types.labels import CELL_TYPES
from fortap.tasks.cell_types.metrics import confusion, scores
from fortap.tasks.cell_types.saus import SausSheet
from fortap.tasks.cell_types.split import make_folds

SETTINGS = tuple(
    {"num_leaves": leaves, "min_data_in_leaf": leaf} for leaves in (15, 63) for leaf in (100, 400)
)
FIXED = {"objective": "multiclass", "num_class": len(CELL_TYPES), "learning_rate": 0.1,
         "feature_fraction": 0.5, "bagging_fraction": 0.8, "bagging_freq": 1, "lambda_l2": 1.0,
         "verbose": -1, "deterministic": True, "force_row_wise": True}  # fmt: skip
ROUNDS = (25, 50, 100, 200)  # the numbers of boosting rounds tried
INNER_GROUPS = 4  # the inner split holds out one of four groups of training files


@dataclass(frozen=True)
class Choice:
    """The setting chosen on the inner split, its rounds, and every setting's inner score."""

    setting: dict
    rounds: int
    tried: list[dict] = field(default_factory=list)  # {setting, rounds, macro_f1, derived_f1}


def class_weights(y: np.ndarray) -> np.ndarray:
    """(N,) weight of each cell: cells / (classes x cells of its class)."""
    counts = np.bincount(y, minlength=len(CELL_TYPES))
    return (len(y) / (len(CELL_TYPES) * np.maximum(counts, 1)))[y]


def fit(x: np.ndarray, y: np.ndarray, setting: Mapping, rounds: int, seed: int = 0,
        jobs: int = 1, names: Sequence[str] = FEATURE_NAMES):  # fmt: skip
    """A LightGBM booster over the columns `names` (default `FEATURE_NAMES`), classes weighed
    by `class_weights`."""
    import lightgbm as lgb

    params = {**FIXED, **setting, "seed": seed, "num_threads": jobs}
    train = lgb.Dataset(x, y, weight=class_weights(y), feature_name=list(names))
    return lgb.train(params, train, num_boost_round=rounds)


def probabilities(booster, features: CellFeatures) -> np.ndarray:
    """(N, K) each cell's probability of each class, the booster's features asked for by the
    names it stored."""
    if not len(features.values):  # LightGBM refuses a matrix of no rows
        return np.zeros((0, len(CELL_TYPES)))
    return booster.predict(features.select(booster.feature_name()))


def predict(booster, features: CellFeatures) -> np.ndarray:
    """(N,) class of each cell (`probabilities`' most likely)."""
    return probabilities(booster, features).argmax(1).astype(np.int64)


def choose(train: Sequence[SausSheet], data: Mapping[str, Labelled], seed: int = 0,
           jobs: int = 1, names: Sequence[str] = FEATURE_NAMES) -> Choice:  # fmt: skip
    """The setting and rounds with the best macro-F1 on the inner split of `train` (module
    doc); `names` are the columns of `data`'s features."""
    held_files = set(make_folds(train, INNER_GROUPS)[0])
    fit_side = [s for s in train if s.file not in held_files]
    x, y = stack(fit_side, data)
    vx, vy = stack([s for s in train if s.file in held_files], data)
    tried = []
    for setting in SETTINGS:
        booster = fit(x, y, setting, max(ROUNDS), seed, jobs, names)
        for rounds in ROUNDS:
            scored = scores(confusion(vy, booster.predict(vx, num_iteration=rounds).argmax(1)))
            tried.append({"setting": dict(setting), "rounds": rounds,
                          "macro_f1": scored["macro_f1"], "derived_f1": scored["derived_f1"]})  # fmt: skip
    best = max(tried, key=lambda t: t["macro_f1"])
    return Choice(best["setting"], best["rounds"], tried)


def fit_chosen(train: Sequence[SausSheet], data: Mapping[str, Labelled], seed: int = 0,
               jobs: int = 1, names: Sequence[str] = FEATURE_NAMES) -> tuple[object, Choice]:  # fmt: skip
    """The booster of the setting and rounds `choose` picks on `train`'s inner split, fitted
    on every sheet of `train`, and that choice."""
    choice = choose(train, data, seed, jobs, names)
    x, y = stack(train, data)
    return fit(x, y, choice.setting, choice.rounds, seed, jobs, names), choice


def boosted(train: Sequence[SausSheet], test: Sequence[SausSheet], data: Mapping[str, Labelled],
            seed: int = 0, jobs: int = 1, names: Sequence[str] = FEATURE_NAMES,
            ) -> tuple[list[tuple[np.ndarray, np.ndarray]], Choice]:  # fmt: skip
    """(gold, predicted) per test sheet, and the choice made on the training side."""
    booster, choice = fit_chosen(train, data, seed, jobs, names)
    out = []
    for s in test:
        features, gold = data[s.key]
        out.append((gold, booster.predict(features).argmax(1).astype(np.int64)))
    return out, choice
