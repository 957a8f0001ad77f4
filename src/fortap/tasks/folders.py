"""Any model folder, loaded by what it says it is: `from_pretrained(DIR)`.

A folder's model.json names its task and kind (`tasks.model_folder`); the task's registry entry
declares the kinds it saves and loads (`Task.folders`: a `model_folder.FolderKind` each, with
the files that kind holds and the door that loads it). So one call loads a formula predictor,
a cell typer of any kind or a table answerer, and a folder of a kind no task declares, or one
missing a declared file, is refused by name before any weight is read:

    from fortap.tasks.folders import from_pretrained
    typer = from_pretrained("models/cell-types")        # a CellTyper (the boosted kind)

Each door's own `save(folder)` writes its folder; `fortap check-model` checks the declared
files first (`declared`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fortap.errors import CheckpointError
from fortap.tasks.model_folder import FolderKind, folder_kind, folder_task
from fortap.tasks.registry import task

if TYPE_CHECKING:
    from fortap.tasks.base import Task


def declared(directory: str | Path, found: Task | None = None) -> FolderKind:
    """The `FolderKind` that `directory`'s task (`found`, else the registry's) declares for its
    kind, its files all present; a `CheckpointError` naming the kind or the missing files
    otherwise."""
    directory = Path(directory)
    name, kind = folder_task(directory), folder_kind(directory)
    kinds = {f.kind: f for f in (found or task(name)).folders}
    if kind not in kinds:
        raise CheckpointError(f"{directory}: a {name} folder of kind {kind!r}; this fortap loads "
                              f"the kinds {', '.join(sorted(kinds)) or 'none'}")  # fmt: skip
    missing = [f for f in kinds[kind].files if not (directory / f).exists()]
    if missing:
        raise CheckpointError(f"{directory}: a {name} folder of kind {kind!r} without "
                              f"{', '.join(missing)}")  # fmt: skip
    return kinds[kind]


def from_pretrained(directory: str | Path) -> object:
    """The task's door (`FormulaPredictor`, `CellTyper`, `TableAnswerer`) loaded from
    `directory`, after `declared` has checked it."""
    return declared(directory).load(Path(directory))
