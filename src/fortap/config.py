"""Run configs composed from component configs: YAML presets and dotted overrides.

A run config holds one config per component. Defaults live in the dataclasses; a preset
(`fortap/configs/NAME.yaml`, or any YAML path) holds overrides only; the command line adds
dotted overrides (`--set optim.lr=1e-4`). `compose` applies both to a run's defaults given as
a nested dict; an unknown key or a bad value raises `ConfigError` naming the key and where it
came from. This module knows no component: pretraining's `RunConfig` is
`fortap.training.run_config`, fine-tuning's is `fortap.tasks.run_config`, and both compose
through here (so the config machinery sits below every stage that uses it).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from fortap.errors import FortapError


class ConfigError(FortapError):
    """A config file or override that names an unknown key or holds a bad value."""


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
                new = [yaml.safe_load(p) for p in new.split(",") if p.strip()]  # 0.5 a number
            if not isinstance(new, list | tuple):
                raise ValueError(f"expected a list, got {new!r}")
            return list(new)
        if isinstance(old, str):
            return str(new)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"{source}: bad value for {key!r}: {err}") from None
    return new
