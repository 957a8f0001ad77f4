"""The hybrid rows of `bench/cell_types.py --hybrid ENCODERS`: per encoder, its frozen cell
states beside the extracted features under one LightGBM head (`hybrid ENCODER`), and the
states alone under the same head (`states ENCODER`), on the bench's five folds.

With `--hybrid-head boosted` the head takes, on each fold, the setting and rounds the boosted
model chose on that fold's inner split (`-fx` rows: `hybrid-fx ENCODER`, `states-fx ENCODER`)
instead of choosing again: the same head, only the columns differ, at a fraction of the cost
(the dense state columns make LightGBM's choice several times slower than on the features).

Each encoder's states come from `fortap.tasks.cell_types.state_cache` (cached under `STATES`,
encoded here when missing). Each fold's confusions per file are cached in `cache` as soon as
the fold is scored (`{system: {fold: {file: confusion}}}`), with the head's choice per fold
beside it (`*.choices.json`), so a run stopped part way keeps its folds and a rerun computes
only the ones missing.

The gaps: each hybrid against the boosted model (LightGBM on the features alone), against
its encoder alone, against the hybrid of the untrained tiny encoder (`CONTROL`), and both
against that encoder fine-tuned on the same folds where such runs exist (`FINE_TUNED`:
`fortap-small` is seed 0 of the GPU pretraining pair). With `cached_only` nothing is computed:
the rows hold the folds the cache has (a run still going writes it fold by fold).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fortap.tasks.cell_types.boosted import Choice
from fortap.tasks.cell_types.feature_models import labelled_features
from fortap.tasks.cell_types.hybrid import hybrid
from fortap.tasks.cell_types.metrics import confusion
from fortap.tasks.cell_types.saus import read_saus
from fortap.tasks.cell_types.split import fold_sides, load_folds
from fortap.tasks.cell_types.state_cache import encode, fingerprint
from helpers.paths import RUNS

STATES = RUNS / "cell_types" / "states"  # each encoder's cached cell states
FIXED = "-fx"  # a row whose head takes the boosted model's setting and rounds of each fold
CONTROL = "random"  # the untrained tiny encoder: what any encoder's states add
FINE_TUNED = {"fortap-small": "fortap-s0", "minilm": "minilm", "random": "random"}


def hybrid_name(encoder: str, fixed: bool = False) -> str:
    return f"hybrid{FIXED * fixed} {encoder}"


def alone_name(encoder: str, fixed: bool = False) -> str:
    return f"states{FIXED * fixed} {encoder}"


def hybrid_pairs(encoders: Sequence[str], boosted: str, known: Sequence[str],
                 fixed: bool = False) -> list[tuple]:  # fmt: skip
    """(a, b) gaps of the hybrid rows whose both systems are `known`."""
    out = []
    for e in encoders:
        h, s, tuned = hybrid_name(e, fixed), alone_name(e, fixed), FINE_TUNED.get(e, e)
        out += [(h, boosted), (h, s), (h, tuned), (s, tuned)]
        if e != CONTROL:  # what pretraining adds inside the hybrid
            out.append((h, hybrid_name(CONTROL, fixed)))
    return [(a, b) for a, b in out if a in known and b in known]


def bar_targets(h: dict, gaps: list[dict], against: str, bar: dict[str, float],
                keys: tuple[str, ...] = ("macro_f1", "derived_f1")) -> list[dict]:  # fmt: skip
    """A system row `h` against a shipped recipe's bar (`bar`: the mean over five folds), and
    its paired gaps over `against` above 0 on `keys` (the intervals' low ends): for a hybrid,
    what it must show to replace LightGBM alone (`against` the boosted model)."""
    rows = [{"name": f"{h['system']} {key} (mean of {len(h['folds'])} of 5 folds)",
             "value": h["mean"][key], "target": target,
             "met": h["mean"][key] >= target and len(h["folds"]) == 5}
            for key, target in bar.items()]  # fmt: skip
    for g in gaps:
        if (g["a"], g["b"]) == (h["system"], against):
            for key in keys:
                low = g[key]["low"]
                rows.append({"name": f"{h['system']} - {against} {key} interval low end",
                             "value": low, "target": 0.0, "met": low > 0})  # fmt: skip
    return rows


def hybrid_folds(encoders: Sequence[str], data_dir: Path, cache: Path, jobs: int = 1,
                 states_dir: Path = STATES, fixed: Sequence[Choice] = (), cached_only: bool = False,
                 ) -> dict[str, dict[int, dict[str, list]]]:  # fmt: skip
    """{system: {fold: {file: confusion}}} of each encoder's two rows, cached (module doc);
    with `fixed` (the boosted model's choice of each fold) the `-fx` rows, whose head takes
    them instead of choosing."""
    from fortap.tasks.cell_types.states import load_states

    out = {k: {int(f): v for f, v in per.items()} for k, per in read_json(cache, {}).items()}
    choices = read_json(choices_file(cache), [])
    prints = cache.with_suffix(".encoders.json")  # each encoder's weights when its rows were made
    made = read_json(prints, {})
    for encoder in encoders:  # rows of an encoder whose weights changed since are made again
        now = fingerprint(encoder)
        if made.get(encoder, now) != now:  # (a cache from before the prints: taken as current)
            stale = {f(encoder, bool(fixed)) for f in (hybrid_name, alone_name)}
            out = {name: per for name, per in out.items() if name not in stale}
            choices = [c for c in choices if c["system"] not in stale]
            made[encoder] = now
    if not cached_only:
        write_json(prints, made)
    sheets, folds, data, loaded = None, None, None, {}
    for with_features in (True, False):  # every hybrid row first: they are the comparison
        for encoder in encoders:
            name = (hybrid_name if with_features else alone_name)(encoder, bool(fixed))
            todo = [k for k in range(5) if k not in out.get(name, {})]
            if not todo or cached_only:
                continue
            if sheets is None:
                sheets, folds = read_saus(data_dir), load_folds()
                data = {s.key: labelled_features(s) for s in sheets}
            if encoder not in loaded:
                states = encode(encoder, states_dir, data_dir)
                loaded = {encoder: load_states(states)}  # one in memory
            for k in todo:
                started = time.perf_counter()
                train, test = fold_sides(sheets, folds, k)
                scored, choice = hybrid(train, test, data, loaded[encoder], with_features=with_features,
                                        jobs=jobs, choice=fixed[k] if fixed else None)  # fmt: skip
                files: dict[str, np.ndarray] = {}
                for sheet, (gold, predicted) in zip(test, scored, strict=True):
                    files[sheet.file] = files.get(sheet.file, 0) + confusion(gold, predicted)
                out.setdefault(name, {})[k] = {f: c.tolist() for f, c in sorted(files.items())}
                choices.append({"system": name, "fold": k, "setting": choice.setting,
                                "rounds": choice.rounds, "tried": choice.tried})  # fmt: skip
                write_json(cache, out)
                write_json(choices_file(cache), choices)
                print(f"{name} fold {k}: {time.perf_counter() - started:.0f} s", flush=True)
    wanted = {f(e, bool(fixed)) for e in encoders for f in (hybrid_name, alone_name)}
    return {name: per for name, per in out.items() if name in wanted}


def boosted_choices(path: Path) -> list[Choice]:
    """The boosted model's choice of each fold, as the bench cached it (`*.choices.json`)."""
    found = {c["fold"]: Choice(c["setting"], c["rounds"]) for c in read_json(path, [])}
    if sorted(found) != list(range(5)):
        raise SystemExit(f"{path}: the boosted model's choices of the five folds are needed")
    return [found[k] for k in range(5)]


def read_json(path: Path, empty):
    return json.loads(path.read_text()) if path.is_file() else empty


def write_json(path: Path, value) -> None:
    """Write whole or not at all: a bench reading the cache meanwhile never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(value, indent=1) + "\n")
    part.replace(path)


def choices_file(cache: Path) -> Path:
    return cache.with_name(cache.stem + ".choices.json")
