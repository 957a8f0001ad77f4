"""Cell-type baselines on the extracted features (`features`), scored as the other baselines.

`labelled_features(sheet)` gives the extracted features (`FEATURE_NAMES`, position included)
of a SAUS sheet's labelled cells, row by row as `baselines.cell_features` orders them, from
the sheet a reader gives of its source file (`saus_source`): the features a user's workbook
gets. `feature_forest` fits the forest of `baselines` (same trees, leaves and class weights)
on them; `boosted.boosted` fits LightGBM. Both take the features of each sheet precomputed
(`Labelled`), since every fold reads the same sheets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from fortap.errors import FortapError
from fortap.tasks.cell_types.baselines import LEAF, TREES
from fortap.tasks.cell_types.features import sheet_features
from fortap.tasks.cell_types.labels import NO_LABEL
from fortap.tasks.cell_types.saus import SausSheet
from fortap.tasks.cell_types.saus_source import source_sheet

Labelled = tuple[np.ndarray, np.ndarray]  # (N, F) float32 features, (N,) int64 classes


def labelled_features(sheet: SausSheet) -> Labelled:
    """The extracted features and the classes of the sheet's labelled cells, row-major."""
    cells = [(r, c) for r, row in enumerate(sheet.labels) for c, label in enumerate(row)
             if label != NO_LABEL]  # fmt: skip
    gold = np.asarray([sheet.labels[r][c] for r, c in cells], dtype=np.int64)
    return sheet_features(source_sheet(sheet), cells).values, gold


def stack(sheets: Sequence[SausSheet], data: Mapping[str, Labelled]) -> Labelled:
    """The sheets' features and classes, one after the other."""
    parts = [data[s.key] for s in sheets]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def feature_forest(train: Sequence[SausSheet], test: Sequence[SausSheet],
                   data: Mapping[str, Labelled], seed: int = 0,
                   jobs: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """(gold, predicted) per test sheet from `baselines`' forest fitted on the extracted
    features of the training sheets."""
    try:
        from sklearn.ensemble import RandomForestClassifier
    except ImportError:
        raise FortapError(
            "the forest baseline needs scikit-learn: pip install 'fortap[cell-types]'"
        ) from None
    x, y = stack(train, data)
    model = RandomForestClassifier(n_estimators=TREES, class_weight="balanced_subsample",
                                   min_samples_leaf=LEAF, random_state=seed, n_jobs=jobs)  # fmt: skip
    model.fit(x, y)
    return [(data[s.key][1], model.predict(data[s.key][0]).astype(np.int64)) for s in test]
