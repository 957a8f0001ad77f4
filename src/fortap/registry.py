"""Every task the CLI offers: the fine-tuned tasks of `tasks/` (`tasks.registry`) and the
evaluations of later stages, the suggestion engine's and the audit's.

This table sits above every package it names, so each of its dotted module names points down
(`tests/test_imports.py` checks strings as it checks imports); the modules are still imported
only when their task is used, so `fortap --help` starts without torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fortap.tasks import registry as model_tasks
from fortap.tasks.registry import Line

if TYPE_CHECKING:
    from fortap.tasks.base import Task

REGISTRY: tuple[Line, ...] = (
    model_tasks.REGISTRY[0],  # formula-prediction
    Line("formula-suggestion", "fortap.suggest.task", ("evaluate",)),
    Line("formula-audit", "fortap.audit.task", ("finetune", "evaluate")),
    *model_tasks.REGISTRY[1:],  # cell-types, table-qa
)


def names(command: str | None = None) -> list[str]:
    """Task names offering `command` (all, when None), in the order the CLI lists them."""
    return model_tasks.names(command, REGISTRY)


def task(name: str) -> Task:
    """The `Task` named `name` (its module imported now), or an error naming the choices."""
    return model_tasks.task(name, REGISTRY)
