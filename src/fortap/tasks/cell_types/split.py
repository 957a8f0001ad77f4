"""The 5 folds of SAUS, grouped by file (`make_folds`, `load_folds`, `fold_sides`).

SAUS's own `folds_saus.json` is one 90/10 split, not five folds, so fortap writes its own, once,
to `saus_folds.json` beside this module, and every system (the encoders, the forest, the
majority class) reads that file. A file's sheets (the yearly sheets of one table) stay in one
fold. Files are taken in the order of the SHA-256 of their names (a fixed shuffle) and each
goes to the fold with the fewest labelled cells so far (the lowest-numbered on a tie), so the
folds hold about the same number of cells.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from fortap.errors import FortapError
from fortap.tasks.cell_types.labels import NO_LABEL
from fortap.tasks.cell_types.saus import SausSheet

N_FOLDS = 5
FOLDS_FILE = Path(__file__).with_name("saus_folds.json")


def make_folds(sheets: Sequence[SausSheet], k: int = N_FOLDS) -> list[list[str]]:
    """File names of each of `k` folds (see module doc), each fold sorted."""
    cells: dict[str, int] = {}
    for s in sheets:
        n = sum(label != NO_LABEL for row in s.labels for label in row)
        cells[s.file] = cells.get(s.file, 0) + n
    order = sorted(cells, key=lambda f: hashlib.sha256(f.encode()).hexdigest())
    folds: list[list[str]] = [[] for _ in range(k)]
    load = [0] * k
    for name in order:
        i = min(range(k), key=lambda j: (load[j], j))
        folds[i].append(name)
        load[i] += cells[name]
    return [sorted(f) for f in folds]


def write_folds(folds: list[list[str]], path: str | Path = FOLDS_FILE) -> None:
    text = {"rule": "files by sha256 of the name, each to the fold with fewest labelled cells",
            "folds": folds}  # fmt: skip
    Path(path).write_text(json.dumps(text, indent=1) + "\n")


def load_folds(path: str | Path = "") -> list[list[str]]:
    """The folds' file names from `path` (default: the shipped `saus_folds.json`)."""
    path = Path(path) if path else FOLDS_FILE
    try:
        folds = json.loads(path.read_text())["folds"]
    except (OSError, ValueError, KeyError) as err:
        raise FortapError(f"cannot read the folds {path}: {err}") from None
    seen = [f for fold in folds for f in fold]
    if len(seen) != len(set(seen)):
        raise FortapError(f"{path}: a file lies in two folds")
    return folds


def fold_sides(
    sheets: Sequence[SausSheet], folds: list[list[str]], fold: int
) -> tuple[list[SausSheet], list[SausSheet]]:
    """(train, test) sheets of `fold`: its files are tested on, every other fold's trained on.
    A sheet whose file no fold names raises, so a changed data file cannot slip in."""
    if not 0 <= fold < len(folds):
        raise FortapError(f"fold must lie in 0..{len(folds) - 1}, got {fold}")
    held = set(folds[fold])
    known = {f for names in folds for f in names}
    missing = sorted({s.file for s in sheets} - known)
    if missing:
        raise FortapError(f"{len(missing)} SAUS files lie in no fold, e.g. {missing[0]}")
    return [s for s in sheets if s.file not in held], [s for s in sheets if s.file in held]
