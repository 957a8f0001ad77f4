"""`Task`: what one fine-tuning or evaluation task provides, named in one record.

A task is a folder under `fortap/tasks/` (or a module of a higher package, e.g. `fortap.suggest`)
whose module named in the registry (`fortap.tasks.registry`) exports `TASK = Task(...)`. The
record names the task's config and model, and its two entry points, which the CLI calls:

- `finetune(paths, out, cfg)`: fine-tune on the tables of `paths` and evaluate, writing into
  `out` (None when the task cannot be fine-tuned); a fine-tuned task's entry point hands its
  `TaskRun` to the one run, `fortap.tasks.run.run`;
- `evaluate(paths, out, cfg)`: evaluate (a saved model, baselines) on the tables of `paths`,
  writing into `out`.

`cfg` is an instance of `config`, the task's run-config dataclass (composed from defaults, a
YAML preset and `--set` overrides by `fortap.tasks.run_config.load_run_config`); `shorthands`
maps the CLI's flags (by parameter name: `steps`, `lr`, `model`, ...) to its config keys. A
flag the task does not map is refused for that task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fortap.tasks.model_folder import FolderKind

EntryPoint = Callable[[Sequence[str | Path], str | Path, Any], Any]


@dataclass(frozen=True)
class Task:
    name: str  # the CLI's name, e.g. "formula-prediction"
    summary: str  # one line for --help
    config: type  # the run-config dataclass (every field has a default)
    shorthands: Mapping[str, str] = field(default_factory=dict)  # CLI flag -> config key
    model: type | None = None  # an nn.Module whose forward(batch) returns (loss, logs)
    finetune: EntryPoint | None = None
    evaluate: EntryPoint | None = None
    check: Callable[[Path, Sequence[str | Path]], Any] | None = None  # `fortap check-model`:
    # a saved model folder re-scored in full against its metrics.json (a `model_folder.CheckReport`)
    check_sample: Callable[[Path, Sequence[str | Path]], tuple[str, dict[str, float]]] | None = None
    # the quick check: (what was scored, {metric: value}) on a fixed sample of the data its
    # metrics name, compared with the sample's scores stored in metrics.json (`model_folder`)
    folders: tuple[FolderKind, ...] = ()  # the kinds of model folder it saves and loads

    def commands(self) -> tuple[str, ...]:
        """The CLI commands this task offers."""
        return tuple(c for c in ("finetune", "evaluate", "check") if getattr(self, c) is not None)
