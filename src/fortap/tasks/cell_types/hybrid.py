"""The hybrid cell-type model: a frozen encoder's cell states beside the extracted features,
one LightGBM head over both.

Each labelled cell has the extracted features (`features`, F of them) and its frozen encoder
state (`states`, D dimensions, read from the window that owns the cell). The states are
reduced to `STATE_DIMS` principal components (`Reduction`), fitted on the training sheets'
cells only (no labels are read; a cell no window shows is left out of the fit and stays NaN,
missing to LightGBM), and appended to the features as `state_0` ... `state_{P-1}`. The head is
`boosted`'s: its leaves, smallest leaf and rounds chosen by macro-F1 on the inner split of
the training files (a quarter held out), never on the scored fold.

`hybrid(train, test, data, states)` types the test sheets; `with_features=False` gives the
encoder alone: the reduced states and the same head, no extracted features. Given a `choice`
(the boosted model's own, made on the same fold's inner split) the head takes that setting
and those rounds instead of choosing again: the same head as the boosted model, only the
columns differ, at a fifth of the cost. `STATE_DIMS` = 32
was set before any run (not tuned): enough for a 64- or 384-dim state's main directions,
few beside the 102 features.

Letters: N cells, F features, D hidden, P principal components.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fortap.errors import FortapError
from fortap.tasks.cell_types.boosted import Choice, boosted, fit
from fortap.tasks.cell_types.feature_models import Labelled, stack
from fortap.tasks.cell_types.features import FEATURE_NAMES
from fortap.tasks.cell_types.saus import SausSheet

STATE_DIMS = 32  # principal components of the encoder's cell states kept for the head


def state_names(dims: int) -> tuple[str, ...]:
    return tuple(f"state_{i}" for i in range(dims))


@dataclass(frozen=True)
class Reduction:
    """Principal components of cell states: `reduce(x) = (x - mean) @ components`."""

    mean: np.ndarray  # (D,)
    components: np.ndarray  # (D, P), columns by falling variance

    def reduce(self, states: np.ndarray) -> np.ndarray:
        """(N, P) float32 components of (N, D) states; a NaN row stays NaN."""
        return ((states - self.mean) @ self.components).astype(np.float32)  # (N, P)


def fit_reduction(states: np.ndarray, dims: int = STATE_DIMS) -> Reduction:
    """The `dims` main directions of the finite rows of (N, D) `states` (their covariance's
    top eigenvectors; every row counts, no sampling)."""
    finite = states[np.isfinite(states).all(1)].astype(np.float64)  # (N', D)
    if len(finite) < 2 or dims > states.shape[1]:
        raise FortapError(f"cannot reduce {len(finite)} finite states of {states.shape[1]} "
                          f"dimensions to {dims}")  # fmt: skip
    mean = finite.mean(0)  # (D,)
    centred = finite - mean  # (N', D)
    values, vectors = np.linalg.eigh(centred.T @ centred)  # (D,), (D, D), rising
    return Reduction(mean, vectors[:, ::-1][:, :dims].copy())  # (D, P)


def hybrid_data(data: Mapping[str, Labelled], states: Mapping[str, np.ndarray],
                reduction: Reduction, with_features: bool = True,
                ) -> tuple[dict[str, Labelled], tuple[str, ...]]:  # fmt: skip
    """Each sheet's (features and reduced states, classes), and the columns' names."""
    dims = reduction.components.shape[1]
    names = (FEATURE_NAMES if with_features else ()) + state_names(dims)
    out = {}
    for key, (values, gold) in data.items():
        if key not in states or len(states[key]) != len(gold):
            found = "none" if key not in states else len(states[key])
            raise FortapError(f"{key}: {len(gold)} labelled cells but {found} cell states")
        reduced = reduction.reduce(states[key])  # (N, P)
        x = np.concatenate([values, reduced], 1) if with_features else reduced  # (N, F + P)
        out[key] = (x, gold)
    return out, names


def hybrid(train: Sequence[SausSheet], test: Sequence[SausSheet], data: Mapping[str, Labelled],
           states: Mapping[str, np.ndarray], dims: int = STATE_DIMS, with_features: bool = True,
           seed: int = 0, jobs: int = 1, choice: Choice | None = None,
           ) -> tuple[list[tuple[np.ndarray, np.ndarray]], Choice]:  # fmt: skip
    """(gold, predicted) per test sheet from the hybrid (or, without features, the encoder
    alone), the reduction fitted on `train`'s states, and the head's choice (`choice` itself
    when given, module doc)."""
    reduction = fit_reduction(np.concatenate([states[s.key] for s in train]), dims)
    sheets = {s.key: data[s.key] for s in (*train, *test)}
    joined, names = hybrid_data(sheets, states, reduction, with_features)
    if choice is None:
        return boosted(train, test, joined, seed, jobs, names)
    x, y = stack(train, joined)
    booster = fit(x, y, choice.setting, choice.rounds, seed, jobs, names)
    return [(joined[s.key][1], booster.predict(joined[s.key][0]).argmax(1).astype(np.int64))
            for s in test], choice  # fmt: skip


def fit_hybrid(train: Sequence[SausSheet], data: Mapping[str, Labelled],
               states: Mapping[str, np.ndarray], choice: Choice, dims: int = STATE_DIMS,
               seed: int = 0, jobs: int = 1) -> tuple[Reduction, object]:  # fmt: skip
    """The reduction and the booster of the shipped hybrid recipe (`model.kind=hybrid`),
    fitted on `train` at `choice` (the boosted model's, chosen on `train`'s inner split)."""
    reduction = fit_reduction(np.concatenate([states[s.key] for s in train]), dims)
    joined, names = hybrid_data({s.key: data[s.key] for s in train}, states, reduction)
    x, y = stack(train, joined)
    return reduction, fit(x, y, choice.setting, choice.rounds, seed, jobs, names)
