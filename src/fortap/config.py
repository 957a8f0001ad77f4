"""Run configs: the component configs composed, YAML presets, dotted overrides.

A run config (`RunConfig`) holds one config per component — `model` (`ModelConfig`),
`serialize` (`SerializeConfig`), `objectives` (which to use, each one's weight and config),
`optim` (`OptimConfig`), `training` (`TrainConfig`) and `data` (`DataConfig`). Defaults live in
the dataclasses; a preset (`fortap/configs/NAME.yaml`, or any YAML path) holds overrides only;
the command line adds dotted overrides (`--set optim.lr=1e-4`). An unknown key or a bad value
raises `ConfigError` naming the key and where it came from.

YAML layout (every key optional):

    model: {hidden: 64, layers: 2}
    objectives: {use: [mlm, cell_cloze], mlm: {weight: 1.0, cell_rate: 0.15}}
    training: {steps: 200}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import FortapError
from fortap.model.config import ModelConfig
from fortap.objectives.registry import OBJECTIVES
from fortap.training.loop import TrainConfig
from fortap.training.optim import OptimConfig

TUTA_OBJECTIVES = ("mlm", "cell_cloze", "table_context")  # the default: TUTA's pretraining


class ConfigError(FortapError):
    """A config file or override that names an unknown key or holds a bad value."""


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


def preset_path(name: str) -> Path:
    """A packaged preset by name (`tiny`, `small`) or a YAML file path."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml"):
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}")
        return path
    packaged = resources.files("fortap") / "configs" / f"{name}.yaml"
    if not packaged.is_file():
        names = sorted(
            p.name[:-5]
            for p in (resources.files("fortap") / "configs").iterdir()
            if p.name.endswith(".yaml")
        )
        raise ConfigError(
            f"unknown config preset {name!r}; choose from {', '.join(names)} or a .yaml path"
        )
    return Path(str(packaged))


def load_config(
    preset: str | None = None, overrides: list[str] | tuple[str, ...] = ()
) -> RunConfig:
    """Defaults, then the preset's YAML, then `KEY=VALUE` dotted overrides, in that order."""
    data = compose(default_dict(), preset, overrides)
    return from_dict(data, preset or "config")


def compose(
    data: dict[str, Any], preset: str | None, overrides: list[str] | tuple[str, ...] = ()
) -> dict[str, Any]:
    """`data` (a run's defaults as a nested dict) updated by the preset's YAML, then by the
    `KEY=VALUE` dotted overrides; every key must exist in `data` (`ConfigError` otherwise).
    Fine-tuning run configs compose the same way (`fortap.tasks.run_config`)."""
    if preset:
        path = preset_path(preset)
        try:
            loaded = yaml.safe_load(path.read_text()) or {}
        except (OSError, yaml.YAMLError) as err:
            raise ConfigError(f"cannot read config {path}: {err}") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"config {path} must hold a mapping at the top level")
        merge(data, loaded, str(path))
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"override {item!r} is not KEY=VALUE (e.g. optim.lr=1e-4)")
        set_dotted(data, key.strip(), yaml.safe_load(text) if text.strip() else "", f"--set {item}")
    return data


def merge(base: dict[str, Any], update: dict[str, Any], source: str, prefix: str = "") -> None:
    """Deep-merge `update` into `base`; every key must already exist in `base`."""
    for key, value in update.items():
        dotted = f"{prefix}{key}"
        if key not in base:
            raise ConfigError(f"{source}: unknown key {dotted!r}")
        if isinstance(base[key], dict):
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: {dotted!r} must be a mapping")
            merge(base[key], value, source, dotted + ".")
        else:
            base[key] = _coerce(base[key], value, dotted, source)


def set_dotted(data: dict[str, Any], key: str, value: Any, source: str) -> None:
    *path, last = key.split(".")
    node = data
    for i, part in enumerate(path):
        if not isinstance(node, dict) or part not in node:
            raise ConfigError(f"{source}: unknown key {'.'.join(path[: i + 1])!r}")
        node = node[part]
    if not isinstance(node, dict) or last not in node:
        raise ConfigError(f"{source}: unknown key {key!r}")
    node[last] = _coerce(node[last], value, key, source)


def _coerce(old: Any, new: Any, key: str, source: str) -> Any:
    """Give `new` the type of the default it replaces (YAML reads `1e-4` as a string)."""
    try:
        if isinstance(old, bool):
            if isinstance(new, bool):
                return new
            raise ValueError(f"expected true or false, got {new!r}")
        if isinstance(old, int) and not isinstance(new, bool):
            if isinstance(new, float) and not new.is_integer():
                raise ValueError(f"expected an integer, got {new!r}")
            return int(new)
        if isinstance(old, float) and not isinstance(new, bool):
            return float(new)
        if isinstance(old, list):
            if isinstance(new, str):
                new = [p.strip() for p in new.split(",") if p.strip()]
            if not isinstance(new, list | tuple):
                raise ValueError(f"expected a list, got {new!r}")
            return list(new)
        if isinstance(old, str):
            return str(new)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"{source}: bad value for {key!r}: {err}") from None
    return new


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
