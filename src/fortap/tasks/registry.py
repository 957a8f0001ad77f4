"""The task registry: one line per task, naming the module that exports its `TASK`.

Modules are named by dotted path and imported only when the task is used (`task(name)`), so
the CLI starts without torch, and packages above `tasks/` (e.g. `fortap.suggest`) can register
a task here without `tasks/` importing them. Each line also says which commands the task
offers, so the CLI's choices are known without importing anything; `tests/tasks/test_registry.py`
checks every line against the module's `TASK`.

A new task is a folder (or module) exporting `TASK = fortap.tasks.base.Task(...)` and one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

from fortap.errors import FortapError

if TYPE_CHECKING:
    from fortap.tasks.base import Task


@dataclass(frozen=True)
class Line:
    name: str  # the CLI's name
    module: str  # dotted path of the module exporting TASK
    commands: tuple[str, ...]  # "finetune" and/or "evaluate"


REGISTRY = (
    Line(
        "formula-prediction",
        "fortap.tasks.formula_prediction.task",
        ("finetune", "evaluate", "check"),
    ),
    Line("formula-suggestion", "fortap.suggest.task", ("evaluate",)),
    Line("formula-audit", "fortap.audit.task", ("finetune", "evaluate")),
    Line("cell-types", "fortap.tasks.cell_types.task", ("finetune", "evaluate", "check")),
    Line("table-qa", "fortap.tasks.table_qa.task", ("finetune", "evaluate", "check")),
)


def names(command: str | None = None) -> list[str]:
    """Registered task names (those offering `command`, when given), in registry order."""
    return [line.name for line in REGISTRY if command is None or command in line.commands]


def task(name: str) -> Task:
    """The `Task` registered as `name` (its module imported now)."""
    line = next((line for line in REGISTRY if line.name == name), None)
    if line is None:
        raise FortapError(f"unknown task {name!r}; choose from {', '.join(names())}")
    found = import_module(line.module).TASK
    if found.name != name:
        raise FortapError(f"{line.module}.TASK is named {found.name!r}, registered as {name!r}")
    return found
