"""Cell types of every labelled SAUS sheet from the fold model that did not train on it, and of
any other sheets from the shipped model, cached in a folder so a bench reruns quickly
(`bench/headers.py --with-model`).

    typed = saus_oof_types(CACHE, SAUS)                 # {"file!sheet": {(row, col): class index}}
    typed = shipped_types(sheets, CACHE / "hitab_types.json")   # {name: {...}}

The shipped `models/cell-types` was fitted on every SAUS sheet, so a bench that scores SAUS
with cell types reads out-of-fold types instead: the five folds of `saus_folds.json`, each
typed by a booster fitted on the four others with the shipped recipe (`boosted.fit_chosen`:
settings and rounds chosen on an inner split of those four folds, seed 0, the threads given),
each sheet typed as the model reads it in training (`saus_source.source_sheet`). The fold
boosters are saved as `fold-K/` model folders (`BoostedTyper`) and the types as JSON; both are
made again when the folds file, the recipe's code or the features' code changes (a stamp of
their text).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from fortap.sheet.model import Sheet
from fortap.tasks.cell_types import boosted, features, layout, text_cues
from fortap.tasks.cell_types.boosted_typer import BoostedTyper
from fortap.tasks.cell_types.cell_typer import SHIPPED, CellTyper
from fortap.tasks.cell_types.feature_models import labelled_features
from fortap.tasks.cell_types.metrics import scores
from fortap.tasks.cell_types.saus import SausSheet, as_saus, read_saus
from fortap.tasks.cell_types.saus_source import source_sheet
from fortap.tasks.cell_types.split import FOLDS_FILE, fold_sides, load_folds

RC = tuple[int, int]
Types = dict[str, dict[RC, int]]  # {sheet key: {(row, col): class index}}
SEED = 0  # the shipped recipe's training.seed


def stamp(*texts: str) -> str:
    """A short hash of `texts`: what a cache was made from."""
    return hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]


def fold_stamp(folds_file: Path = FOLDS_FILE) -> str:
    """The folds, the recipe's code (`boosted`) and the features' code, as a cache stamp."""
    code = [inspect.getsource(m) for m in (boosted, features, layout, text_cues)]
    return stamp(folds_file.read_text(), *code, str(SEED))


def read_types(path: Path, made_from: str) -> Types | None:
    """The cached types at `path` if they were made from `made_from`, else None."""
    if not path.is_file():
        return None
    stored = json.loads(path.read_text())
    if stored.get("stamp") != made_from:
        return None
    return {key: {(r, c): k for r, c, k in cells} for key, cells in stored["types"].items()}


def write_types(path: Path, made_from: str, types: Types) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cells = {key: [[r, c, k] for (r, c), k in sorted(t.items())] for key, t in types.items()}
    path.write_text(json.dumps({"stamp": made_from, "types": cells}) + "\n")


def fold_typers(sheets: list[SausSheet], folder: Path, threads: int = 2,
                log: Callable[[str], None] = print) -> list[BoostedTyper]:  # fmt: skip
    """The five fold boosters (fold K's fitted without fold K), from `folder/fold-K` when their
    stamp matches, else fitted and saved there."""
    folds, made_from = load_folds(), fold_stamp()
    typers: list[BoostedTyper | None] = []
    for k in range(len(folds)):
        path = folder / f"fold-{k}"
        kept = path / "stamp.txt"
        ok = kept.is_file() and kept.read_text().strip() == made_from
        typers.append(BoostedTyper.load(path) if ok else None)
    missing = [k for k, t in enumerate(typers) if t is None]
    if not missing:
        return typers  # type: ignore[return-value]
    # boosted_run brings torch (through its run config): only a fit needs it
    from fortap.tasks.cell_types.boosted_run import file_confusions

    log(f"fitting fold boosters {missing} (features of {len(sheets)} sheets first)")
    data = {s.key: labelled_features(s) for s in sheets}
    for k in missing:
        started = time.perf_counter()
        train, test = fold_sides(sheets, folds, k)
        booster, choice = boosted.fit_chosen(train, data, SEED, threads)
        typer = BoostedTyper(booster, {"setting": choice.setting, "rounds": choice.rounds})
        typer.save(folder / f"fold-{k}")
        (folder / f"fold-{k}" / "stamp.txt").write_text(made_from + "\n")
        held = scores(sum(file_confusions(booster, test, data).values()))
        log(f"fold {k}: {len(train)} training sheets, {len(test)} held out: macro-F1 "
            f"{held['macro_f1']:.3f} ({typer.info}, {time.perf_counter() - started:.0f} s)")  # fmt: skip
        typers[k] = typer
    return typers  # type: ignore[return-value]


def saus_oof_types(folder: Path, saus: Path, threads: int = 2,
                   log: Callable[[str], None] = print) -> Types:  # fmt: skip
    """{"file!sheet": {(row, col): class}} of every labelled SAUS sheet, each typed by the fold
    booster that did not train on it (module doc); cached in `folder/saus_oof_types.json`."""
    cache, made_from = folder / "saus_oof_types.json", fold_stamp()
    types = read_types(cache, made_from)
    if types is not None:
        return types
    sheets = read_saus(saus)
    typers = fold_typers(sheets, folder, threads, log)
    fold_of = {f: k for k, names in enumerate(load_folds()) for f in names}
    types = {s.key: class_of(typers[fold_of[s.file]].type_sheet(source_sheet(s)))
             for s in sheets}  # fmt: skip
    write_types(cache, made_from, types)
    return types


def shipped_types(sheets: Mapping[str, Sheet], cache: Path, model: Path = SHIPPED) -> Types:
    """{name: {(row, col): class}} of each sheet typed by the model folder `model` (the shipped
    one by default) as `fortap cell-types` types a user's sheet (`saus.as_saus`: the view a
    SAUS-trained model reads, merges and formulas left out), cached in `cache` (made again
    when the model folder's files or the features' code change)."""
    code = [inspect.getsource(m) for m in (features, layout, text_cues)]
    made_from = stamp(
        *(p.read_text() for p in sorted(model.iterdir()) if p.suffix in (".txt", ".json")), *code
    )
    types = read_types(cache, made_from)
    if types is not None and set(types) >= set(sheets):
        return types
    typer = CellTyper.load(model)
    types = {name: class_of(typer.type_sheet(as_saus(sheet))) for name, sheet in sheets.items()}
    write_types(cache, made_from, types)
    return types


def class_of(typed: Mapping[RC, tuple[int, float]]) -> dict[RC, int]:
    """{(row, col): class index} of `type_sheet`'s answer."""
    return {rc: k for rc, (k, _) in typed.items()}
