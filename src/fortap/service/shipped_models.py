"""The models behind the page's colouring and ask box, each loaded once per process on first use.

`fortap serve` starts without them: the cell-type booster loads in a fraction of a second, the
table-QA encoder in seconds on a CPU, and a user who never asks should not wait for either.
`load_once(folder, what, load)` keeps what `load(folder)` returned under the folder's resolved
path (`tasks.model_folder.loaded_once`, which `fortap ask` uses too), so every app in the
process (the tests start many) shares one copy. A folder that is not
there is a `ModelMissing` (a 503 naming the folder), checked on every call, so installing the
model later needs no restart.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from fortap.errors import FortapError
from fortap.tasks.model_folder import loaded_once, where_shipped

T = TypeVar("T")


class ModelMissing(FortapError):
    """A model folder the page needs is not installed."""


def check_installed(folder: Path, what: str) -> None:
    """A `ModelMissing` naming `folder` when it is not there; `what` names the feature."""
    if not folder.is_dir():
        state = "is a file, not a folder" if folder.exists() else "does not exist"
        raise ModelMissing(f"{what} needs its model, and the folder {folder} {state}: "
                           f"{where_shipped(folder)}")  # fmt: skip


def load_once(folder: Path, what: str, load: Callable[[Path], T]) -> T:
    """`load(folder)`, the first time in this process (`model_folder.loaded_once`); the same
    object afterwards. `what` names the feature in the `ModelMissing` message."""
    check_installed(folder, what)
    return loaded_once(folder, load)
