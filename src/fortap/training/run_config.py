"""Pretraining run config (`RunConfig`): the component configs composed, presets, overrides.

A `RunConfig` holds one config per component — `model` (`ModelConfig`), `serialize`
(`SerializeConfig`), `objectives` (which to use, each one's weight and config), `optim`
(`OptimConfig`), `training` (`TrainConfig`) and `data` (`DataConfig`). `load_config` starts
from the dataclasses' defaults and composes a preset and dotted overrides over them through
`fortap.config.compose`; an unknown key or a bad value raises `ConfigError` naming the key.

YAML layout (every key optional):

    model: {hidden: 64, layers: 2}
    objectives: {use: [mlm, cell_cloze], mlm: {weight: 1.0, cell_rate: 0.15}}
    training: {steps: 200}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from fortap.config import ConfigError, compose
from fortap.encoding.serialize import SerializeConfig
from fortap.model.config import ModelConfig
from fortap.objectives.registry import OBJECTIVES
from fortap.training.loop import TrainConfig
from fortap.training.optim import OptimConfig

TUTA_OBJECTIVES = ("mlm", "cell_cloze", "table_context")  # the default: TUTA's pretraining


@dataclass(frozen=True)
class DataConfig:
    """How tables become pretraining examples."""

    max_tokens: int = 256  # whole example, appended cloze answers and context choices included
    eval_tables: int = 8  # tables held out for evaluation (never trained on)
    max_tables: int = 0  # use at most this many tables / corpus train samples (0 = all)
    formula_samples_only: bool = False  # train on corpus samples built around a formula only
    # (ForTaP's own pretraining data; the formula-free table samples serve TUTA's objectives)
    train_per_book: int = 0  # train on at most this many corpus samples of one workbook (0 =
    # all): more workbooks per update when a run sees less than an epoch
    eval_samples: int = 512  # corpus dev samples evaluated, a fixed-seed subset (0 = all)
    eval_per_book: int = 32  # ... at most this many from one workbook (0 = no cap), so a few
    # large workbooks do not make the dev metrics theirs
    row_col_rate: float = 0.5  # a table too long for one sequence: chance of headers + one cell's
    # row and column (the paper's input); otherwise a window of rows under repeated headers
    workers: int = 0  # processes that build batches ahead (`fortap.training.loader`); 0 = built
    # in the training process. The stream depends on the count: resume with the same one
    prefetch: int = 2  # batches each worker keeps ready

    def __post_init__(self) -> None:
        if self.max_tokens < 16:
            raise ValueError(f"DataConfig.max_tokens must be >= 16, got {self.max_tokens}")
        counts = (self.eval_tables, self.max_tables, self.train_per_book, self.eval_samples,
                  self.eval_per_book)  # fmt: skip
        if min(counts) < 0:
            raise ValueError(
                "DataConfig.eval_tables, max_tables, train_per_book, eval_samples and "
                "eval_per_book must be >= 0"
            )
        if not 0.0 <= self.row_col_rate <= 1.0:
            raise ValueError(f"DataConfig.row_col_rate must be in [0, 1], got {self.row_col_rate}")
        if self.workers < 0 or self.prefetch < 1:
            raise ValueError(
                f"DataConfig.workers must be >= 0 and prefetch >= 1, got {self.workers} and "
                f"{self.prefetch}"
            )


@dataclass(frozen=True)
class ObjectiveSetting:
    weight: float  # multiplies the objective's loss in the total
    config: Any  # the objective's own config dataclass


@dataclass(frozen=True)
class RunConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    serialize: SerializeConfig = field(default_factory=SerializeConfig)
    objectives: dict[str, ObjectiveSetting] = field(default_factory=lambda: default_objectives())
    use: tuple[str, ...] = TUTA_OBJECTIVES  # objectives in use (names from the registry)
    optim: OptimConfig = field(default_factory=OptimConfig)
    training: TrainConfig = field(default_factory=TrainConfig)
    data: DataConfig = field(default_factory=DataConfig)

    def to_dict(self) -> dict[str, Any]:
        out = {
            name: _plain(dataclasses.asdict(getattr(self, name)))
            for name in ("model", "serialize", "optim", "training", "data")
        }
        objectives: dict[str, Any] = {"use": list(self.use)}
        for name, setting in self.objectives.items():
            objectives[name] = {
                "weight": setting.weight,
                **_plain(dataclasses.asdict(setting.config)),
            }
        out["objectives"] = objectives
        return out


def default_objectives() -> dict[str, ObjectiveSetting]:
    """Every registered objective with weight 1 and its default config."""
    return {name: ObjectiveSetting(1.0, o.config()) for name, o in OBJECTIVES.items()}


SECTIONS = {
    "model": ModelConfig,
    "serialize": SerializeConfig,
    "optim": OptimConfig,
    "training": TrainConfig,
    "data": DataConfig,
}


def default_dict() -> dict[str, Any]:
    """The defaults of every component as a nested dict (the base every preset overrides)."""
    return RunConfig().to_dict()


def from_dict(data: dict[str, Any], source: str = "config") -> RunConfig:
    """Build a `RunConfig` from a complete nested dict; bad values name the section."""
    parts: dict[str, Any] = {}
    for name, cls in SECTIONS.items():
        parts[name] = _build(cls, data[name], f"{source}: {name}")
    objectives = dict(data["objectives"])
    use = objectives.pop("use")
    if isinstance(use, str):
        use = [u.strip() for u in use.split(",") if u.strip()]
    for name in use:
        if name not in OBJECTIVES:
            raise ConfigError(
                f"{source}: objectives.use names {name!r}; choose from {', '.join(OBJECTIVES)}"
            )
    if not use:
        raise ConfigError(f"{source}: objectives.use is empty")
    settings = {}
    for name, values in objectives.items():
        values = dict(values)
        weight = values.pop("weight")
        cfg = _build(OBJECTIVES[name].config, values, f"{source}: objectives.{name}")
        settings[name] = ObjectiveSetting(float(weight), cfg)
    return RunConfig(objectives=settings, use=tuple(use), **parts)


def load_config(
    preset: str | None = None, overrides: list[str] | tuple[str, ...] = ()
) -> RunConfig:
    """Defaults, then the preset's YAML, then `KEY=VALUE` dotted overrides, in that order."""
    data = compose(default_dict(), preset, overrides)
    return from_dict(data, preset or "config")


def _build(cls: type, values: dict[str, Any], where: str):
    try:
        return cls(**values)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"{where}: {err}") from None


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
