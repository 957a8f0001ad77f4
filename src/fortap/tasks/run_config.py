"""Fine-tuning run configs, composed as pretraining's (`fortap.config`).

A task's run config is a frozen dataclass of sections, each a frozen dataclass (data, encoder,
decoder, optim, training, evaluation, decoding, ...). Its defaults are the dataclasses'; a
preset (`fortap/configs/NAME.yaml`, or any YAML path) overrides some keys; `--set KEY=VALUE`
overrides more; the CLI's flags are shorthands for keys (`Task.shorthands`). An unknown key or
a bad value raises `ConfigError` naming the key and where it came from.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from collections.abc import Sequence
from typing import Any, TypeVar

from fortap.config import ConfigError, compose
from fortap.tasks.recipe import RENAMED_KEYS

C = TypeVar("C")


# The CLI flags that every fine-tuned task maps to the same keys of its run config (each task's
# `SHORTHANDS` adds its own, e.g. `corpus` or `beam`).
FINETUNE_SHORTHANDS = {
    "encoder": "encoder.name",
    "checkpoint": "encoder.checkpoint",
    "steps": "training.steps",
    "lr": "optim.lr",
    "encoder_lr": "optim.encoder_lr",
    "device": "training.device",
    "threads": "training.threads",
    "seed": "training.seed",
    "model": "evaluation.model",
    "progress": "training.progress",
}


def config_dict(cfg: Any) -> dict[str, Any]:
    """A run config as a nested dict of plain values (tuples as lists), e.g. for JSON."""
    return json.loads(json.dumps(dataclasses.asdict(cfg)))


def load_run_config(cls: type[C], preset: str | None = None, overrides: Sequence[str] = ()) -> C:
    """The defaults of `cls`, then the preset's YAML, then the dotted overrides."""
    for key in overrides:
        old = key.split("=", 1)[0].strip()
        if old in RENAMED_KEYS:
            raise ConfigError(f"{old} is now {RENAMED_KEYS[old]} (--lr: the head's peak rate)")
    data = compose(config_dict(cls()), preset, list(overrides))
    return build(cls, data, preset or "config")


def build(cls: type[C], data: dict[str, Any], where: str, prefix: str = "") -> C:
    """`cls` from a complete nested dict; sections that are dataclasses are built the same way
    and a tuple default turns its list back into a tuple. Bad values name the section."""
    default = cls()
    values = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        current, value = getattr(default, f.name), data[f.name]
        if dataclasses.is_dataclass(current):
            value = build(type(current), value, where, f"{prefix}{f.name}.")
        elif isinstance(current, tuple):
            value = tuple(value)
        values[f.name] = value
    try:
        return cls(**values)
    except (TypeError, ValueError) as err:
        section = prefix.rstrip(".") or "run config"
        raise ConfigError(f"{where}: {section}: {err}") from None


def finetune_command(task: str, data: str, cfg: Any) -> str:
    """The `fortap finetune` command that makes `cfg` (each non-default key a `--set`), as a
    model card gives it."""
    sets = " ".join(f"--set {shlex.quote(o)}" for o in overrides_of(cfg))
    return f"fortap finetune {task} {data} -o OUT {sets}".rstrip()


def overrides_of(cfg: Any) -> list[str]:
    """The `KEY=VALUE` overrides that make `cfg` from its class's defaults (for a model card's
    command: `--set` each of them)."""
    have, default = config_dict(cfg), config_dict(type(cfg)())
    out: list[str] = []

    def walk(a: dict, b: dict, prefix: str) -> None:
        for key, value in a.items():
            if isinstance(value, dict):
                walk(value, b[key], f"{prefix}{key}.")
            elif value != b[key]:
                text = ",".join(map(str, value)) if isinstance(value, list) else value
                out.append(f"{prefix}{key}={json.dumps(text) if isinstance(text, str) else text}")

    walk(have, default, "")
    return out
