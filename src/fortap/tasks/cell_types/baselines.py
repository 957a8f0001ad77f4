"""The baselines of cell types, scored on the same folds and cells as the encoders.

- `majority`: every cell gets the training side's most frequent class (data).
- `forest`: scikit-learn's random forest (100 trees, `class_weight="balanced_subsample"`,
  `min_samples_leaf=2`) on each labelled cell's 43 SAUS features (`FEATURES`), or with
  `position` on those plus its row and column index and their share of the sheet's rows and
  columns (`POSITION`). scikit-learn comes with the `cell-types` extra
  (`pip install 'fortap[cell-types]'`) and is imported only here.

Both return, per test sheet, the gold and predicted class of each labelled cell, so the scores
(`metrics`) are computed as the encoders' are. The forest sees every labelled cell directly;
it has no windows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fortap.errors import FortapError
from fortap.tasks.cell_types.labels import NO_LABEL
from fortap.tasks.cell_types.saus import SausSheet

POSITION = ("row", "col", "row_share", "col_share")
TREES, LEAF = 100, 2


def cell_features(sheet: SausSheet, position: bool) -> tuple[np.ndarray, np.ndarray]:
    """(N, 43 [+ 4]) features and (N,) classes of the sheet's labelled cells, row-major."""
    rows, gold = [], []
    n_rows, n_cols = len(sheet.labels), max(len(r) for r in sheet.labels)
    for r, labels in enumerate(sheet.labels):
        for c, label in enumerate(labels):
            if label == NO_LABEL:
                continue
            extra = (r, c, r / n_rows, c / n_cols) if position else ()
            rows.append((*sheet.features[r][c], *extra))
            gold.append(label)
    width = len(sheet.feature_names) + (len(POSITION) if position else 0)
    return np.asarray(rows, dtype=np.float32).reshape(-1, width), np.asarray(gold, dtype=np.int64)


def majority(
    train: Sequence[SausSheet], test: Sequence[SausSheet]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(gold, predicted) per test sheet, predicting the training side's most frequent class."""
    counts = np.bincount(np.concatenate([cell_features(s, False)[1] for s in train]))
    best = int(counts.argmax())
    out = []
    for s in test:
        gold = cell_features(s, False)[1]
        out.append((gold, np.full_like(gold, best)))
    return out


def forest(train: Sequence[SausSheet], test: Sequence[SausSheet], position: bool,
           seed: int = 0, jobs: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """(gold, predicted) per test sheet from a forest fitted on the training sheets."""
    try:
        from sklearn.ensemble import RandomForestClassifier
    except ImportError:
        raise FortapError(
            "the forest baseline needs scikit-learn: pip install 'fortap[cell-types]'"
        ) from None
    parts = [cell_features(s, position) for s in train]
    x = np.concatenate([p[0] for p in parts])  # (N, features)
    y = np.concatenate([p[1] for p in parts])  # (N,)
    model = RandomForestClassifier(n_estimators=TREES, class_weight="balanced_subsample",
                                   min_samples_leaf=LEAF, random_state=seed, n_jobs=jobs)  # fmt: skip
    model.fit(x, y)
    out = []
    for s in test:
        features, gold = cell_features(s, position)
        out.append((gold, model.predict(features).astype(np.int64)))
    return out
