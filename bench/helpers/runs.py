"""Run folders named on a bench's command line: each with its label (`--labels a,b` or the
folder's name), read by the bench's own reader."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path


def labelled_runs(paths: Sequence[str], labels: str | None, read: Callable) -> dict:
    """{label: read(path)} in the order given; exits with a message when the counts differ."""
    names = labels.split(",") if labels else [Path(p).name for p in paths]
    if len(names) != len(paths):
        raise SystemExit(f"--labels names {len(names)} runs, {len(paths)} given")
    return {name: read(path) for name, path in zip(names, paths, strict=True)}
