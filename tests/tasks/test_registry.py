"""The task registry: every line imports, names its module's TASK, and offers what it says."""

from __future__ import annotations

import dataclasses
import importlib.util

import pytest

from fortap.cli import EvaluateTask, FinetuneTask
from fortap.errors import FortapError
from fortap.registry import REGISTRY, names, task
from fortap.tasks.base import Task
from fortap.tasks.run_config import config_dict


@pytest.mark.parametrize("line", REGISTRY, ids=lambda line: line.name)
def test_every_line_names_an_importable_task(line):
    assert importlib.util.find_spec(line.module) is not None, line.module
    found = task(line.name)
    assert isinstance(found, Task) and found.name == line.name
    assert found.commands() == line.commands
    for command in line.commands:
        assert callable(getattr(found, command)), command
    assert dataclasses.is_dataclass(found.config)
    defaults = config_dict(found.config())  # every field has a default
    for flag, key in found.shorthands.items():
        node = defaults
        for part in key.split("."):
            assert part in node, f"{line.name}: --{flag} maps to the unknown key {key!r}"
            node = node[part]
    if found.model is not None:
        assert callable(getattr(found.model, "forward", None))


def test_cli_choices_come_from_the_registry():
    assert (
        [t.value for t in FinetuneTask]
        == names("finetune")
        == ["formula-prediction", "formula-audit", "cell-types", "table-qa"]
    )
    assert [t.value for t in EvaluateTask] == names("evaluate")
    assert set(names("finetune")) <= set(names())


def test_an_unknown_task_is_named():
    with pytest.raises(FortapError, match="unknown task 'cell-kind'; choose from formula-pred"):
        task("cell-kind")
