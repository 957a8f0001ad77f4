"""The learned ranker: LightGBM `lambdarank` over candidate features.

A ranker is two files in a folder: `model.txt` (LightGBM's own text format; never a pickle)
and `features.json` (the feature names in column order, plus how it was trained). A feature a
candidate lacks is NaN, which the trees route on their own. `Ranker.load(None)` loads the small
default shipped in `fortap/suggest/ranker_default/`.

The feature names are those the sources it was trained with declare (`candidates.declared`):
every source of `candidates.SOURCES`, and each optional one (built with a run-time object: the
common formulas, a model) whose flag `src_<name>` is among them. `train_ranker` writes exactly
those (a declared feature no candidate carried is an all-NaN column), and `Ranker.load` refuses
a ranker whose names differ, naming the difference.

A candidate of an optional source the ranker never saw in training (no `src_<source>` among its
features: the shipped ranker was trained without a model) is not scored against the others,
since every feature of its own would be missing and the trees' answer for it meaningless. Such
candidates follow the ranked ones in their generation order (the model's beam order), with
scores below every ranked candidate's (the lowest ranked score minus 1, 2, ...), so scores
still fall with rank. A formula such a source proposes that another source proposes too is
that source's candidate (`candidates.generate` merges them) and is ranked; that source's
features are the only ones the ranker may leave out of the candidate (`Ranker.may_leave_out`):
any other feature it does not know is an error. A ranker trained with model candidates has
`src_model` and ranks them with the rest.

A ranker folder may also hold `common.json`, the `candidates.common.CommonTable` learnt with it:
callers pass `Ranker.common` to `candidates.generate`, which then adds the common formulas.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from fortap.errors import FortapError
from fortap.suggest.candidates import FLAG, SOURCES, declared
from fortap.suggest.candidates.common import FILE as COMMON_FILE
from fortap.suggest.candidates.common import CommonSource, CommonTable

DEFAULT_DIR = Path(__file__).parent / "ranker_default"
MODEL_FILE, FEATURES_FILE = "model.txt", "features.json"
ALWAYS = tuple(s.name for s in SOURCES)  # sources every ranker is trained with


@dataclass(frozen=True)
class RankerConfig:
    """LightGBM settings of `train_ranker` (small trees: the default model ships in the wheel)."""

    rounds: int = 200
    leaves: int = 15
    learning_rate: float = 0.05
    min_data_in_leaf: int = 20
    feature_fraction: float = 0.9
    seed: int = 0
    eval_at: tuple[int, ...] = (1, 5)
    extra: Mapping[str, float] = field(default_factory=dict)


def matrix(
    feature_names: Sequence[str],
    rows: Sequence[Mapping[str, float]],
    may_leave_out: Callable[[str], bool] = lambda name: False,
) -> np.ndarray:
    """(n, F) float matrix of candidate features in `feature_names` order, NaN when missing;
    a `FortapError` naming any feature of `rows` not in `feature_names` unless
    `may_leave_out(name)`."""
    out = np.full((len(rows), len(feature_names)), np.nan, np.float64)  # (n, F)
    index = {name: j for j, name in enumerate(feature_names)}
    unknown: set[str] = set()
    for i, row in enumerate(rows):
        for name, value in row.items():
            j = index.get(name)
            if j is not None:
                out[i, j] = value
            elif not may_leave_out(name):
                unknown.add(name)
    if unknown:
        raise FortapError(f"features the ranker does not know: {', '.join(sorted(unknown))}")
    return out


def optional_sources() -> tuple:
    """The classes of the sources built with a run-time object, in generation order: the
    ranker's common formulas and a formula-prediction model. The model's module is imported
    only when they are asked for (an optional source flagged, or a feature the ranker does not
    know): it loads torch."""
    from fortap.suggest.candidates.model import ModelSource

    return (CommonSource, ModelSource)


def trained_with(feature_names: Iterable[str]) -> list:
    """The sources of a ranker with these features: every source of `candidates.SOURCES`,
    then each optional one flagged (`src_<name>`); a `FortapError` naming a flag of no source."""
    flags = {n[len(FLAG) :] for n in feature_names if n.startswith(FLAG)} - set(ALWAYS)
    if not flags:
        return list(SOURCES)
    optional = [s for s in optional_sources() if s.name in flags]
    unknown = sorted(flags - {s.name for s in optional})
    if unknown:
        names = ", ".join(FLAG + name for name in unknown)
        raise FortapError(f"ranker features {names} flag no candidate source")
    return [*SOURCES, *optional]


def check_names(feature_names: Sequence[str], where: object) -> None:
    """A `FortapError` naming the difference when `feature_names` are not those declared by
    the sources the ranker was trained with (`trained_with`)."""
    want = declared(trained_with(feature_names))
    missing = sorted(set(want) - set(feature_names))
    extra = sorted(set(feature_names) - set(want))
    if missing or extra:
        parts = [f"missing {', '.join(missing)}"] if missing else []
        parts += [f"not declared by any of its sources: {', '.join(extra)}"] if extra else []
        raise FortapError(
            f"{where}: its features are not those its sources declare "
            f"({'; '.join(parts)}); train it again with `fortap train-ranker`"
        )


class Ranker:
    """A trained LightGBM booster and its feature names."""

    def __init__(
        self,
        booster,
        feature_names: Sequence[str],
        info: Mapping | None = None,
        common: CommonTable | None = None,
    ):
        self.booster = booster
        self.feature_names = list(feature_names)
        self.info = dict(info or {})
        self.common = common

    @classmethod
    def load(cls, path: Path | None = None) -> Ranker:
        """The ranker saved in folder `path` (None: the default shipped with fortap)."""
        import lightgbm as lgb

        folder = Path(path) if path is not None else DEFAULT_DIR
        try:
            meta = json.loads((folder / FEATURES_FILE).read_text())
            booster = lgb.Booster(model_file=str(folder / MODEL_FILE))
        except (OSError, ValueError, lgb.basic.LightGBMError) as err:
            raise FortapError(f"cannot load the ranker in {folder}: {err}") from None
        if not isinstance(meta, dict) or not isinstance(meta.get("features"), list):
            raise FortapError(f"{folder / FEATURES_FILE}: no 'features' list")
        check_names(meta["features"], folder / FEATURES_FILE)
        return cls(booster, meta["features"], meta.get("info"), CommonTable.load(folder))

    def save(self, folder: Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.booster.save_model(str(folder / MODEL_FILE))
        meta = {"features": self.feature_names, "info": self.info}
        (folder / FEATURES_FILE).write_text(json.dumps(meta, indent=1) + "\n")
        if self.common is not None:
            self.common.save(folder)
        else:  # a table left by an earlier ranker in this folder is not this one's
            (folder / COMMON_FILE).unlink(missing_ok=True)

    def scores(self, features: Sequence[Mapping[str, float]]) -> np.ndarray:
        if not features:
            return np.zeros(0)
        x = matrix(self.feature_names, features, self.may_leave_out)  # (n, F)
        # one thread: a few dozen rows, and OpenMP start-up would cost more than the trees
        return self.booster.predict(x, num_threads=1)  # (n,)

    def knows(self, source: str) -> bool:
        """Whether the ranker scores candidates of `source`: every source but an optional one
        it was trained without."""
        return source in ALWAYS or FLAG + source in self.feature_names

    def may_leave_out(self, feature: str) -> bool:
        """Whether `feature` is one the ranker may not know: declared by an optional source it
        was trained without (and no source it was trained with)."""
        return feature in self._left_out

    @cached_property
    def _left_out(self) -> frozenset[str]:
        names = set(self.feature_names)
        unseen = [s for s in optional_sources() if FLAG + s.name not in names]
        return frozenset(set(declared(unseen)) - names)

    def rank(self, candidates: Sequence) -> list[tuple[object, float]]:
        """`(candidate, score)` pairs, best first (ties keep the candidates' order); candidates
        of an optional source the ranker does not know come last, in their order (module doc)."""
        known = [c for c in candidates if self.knows(c.source)]
        unseen = [c for c in candidates if not self.knows(c.source)]
        scores = self.scores([c.features for c in known])
        order = sorted(range(len(known)), key=lambda i: (-scores[i], i))
        ranked = [(known[i], float(scores[i])) for i in order]
        floor = float(scores.min()) if len(known) else 0.0
        return ranked + [(c, floor - i) for i, c in enumerate(unseen, start=1)]


def train_ranker(
    features: Sequence[Sequence[Mapping[str, float]]],
    labels: Sequence[Sequence[int]],
    cfg: RankerConfig = RankerConfig(),
    info: Mapping | None = None,
    common: CommonTable | None = None,
) -> Ranker:
    """A `lambdarank` ranker from query groups: `features[q]` the candidates of target `q`,
    `labels[q]` their relevance (`train.labels_of`: 2 the gold, 1 the gold's sketch only, 0
    the rest); `common` the table the candidates were generated with, saved with the ranker."""
    import lightgbm as lgb

    seen = {name for group in features for row in group for name in row}
    names = sorted(declared(trained_with(seen)))
    undeclared = sorted(seen - set(names))
    if undeclared:
        raise FortapError(f"train_ranker: features no source declares: {', '.join(undeclared)}")
    rows = [row for group in features for row in group]
    y = np.array([v for group in labels for v in group], np.float64)  # (n,)
    sizes = [len(group) for group in features]
    if not rows or y.max(initial=0) <= 0:
        raise FortapError(
            "train_ranker: no training target has the gold formula among its candidates"
        )
    params = {
        "objective": "lambdarank",
        "metric": "ndcg",
        "eval_at": list(cfg.eval_at),
        "num_leaves": cfg.leaves,
        "learning_rate": cfg.learning_rate,
        "min_data_in_leaf": cfg.min_data_in_leaf,
        "feature_fraction": cfg.feature_fraction,
        "seed": cfg.seed,
        "deterministic": True,
        "num_threads": 1,
        "verbosity": -1,
        **cfg.extra,
    }
    data = lgb.Dataset(matrix(names, rows), y, group=sizes, feature_name=names)
    booster = lgb.train(params, data, num_boost_round=cfg.rounds)
    return Ranker(booster, names, info, common)
