"""The registry of the fine-tuned tasks: one line per task, naming the module that exports its
`TASK`.

Modules are named by dotted path and imported only when the task is used (`task(name)`), so
the CLI starts without torch. Each line also says which commands the task offers, so the CLI's
choices are known without importing anything. Every line here names a module of `tasks/`;
the tasks of later stages (the suggestion engine's and the audit's evaluations) are listed in
`fortap.registry`, the table the CLI reads, so that no string here points upward
(`tests/test_imports.py` reads dotted names in strings as imports).
`tests/tasks/test_registry.py` checks every line against the module's `TASK`.

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
    Line("cell-types", "fortap.tasks.cell_types.task", ("finetune", "evaluate", "check")),
    Line("table-qa", "fortap.tasks.table_qa.task", ("finetune", "evaluate", "check")),
)


def names(command: str | None = None, registry: tuple[Line, ...] = REGISTRY) -> list[str]:
    """Registered task names (those offering `command`, when given), in registry order."""
    return [line.name for line in registry if command is None or command in line.commands]


def task(name: str, registry: tuple[Line, ...] = REGISTRY) -> Task:
    """The `Task` registered as `name` (its module imported now)."""
    line = next((line for line in registry if line.name == name), None)
    if line is None:
        raise FortapError(f"unknown task {name!r}; choose from {', '.join(names(None, registry))}")
    found = import_module(line.module).TASK
    if found.name != name:
        raise FortapError(f"{line.module}.TASK is named {found.name!r}, registered as {name!r}")
    return found
