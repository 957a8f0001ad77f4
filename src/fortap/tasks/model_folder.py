"""One folder layout for every fine-tuned model (formula prediction, cell types, table QA).

    DIR/model.json        what the folder holds: {"format", "task", "kind", "inputs" (the
                          `SerializeConfig` its examples were built with), "head" (the head's
                          own config, e.g. the formula decoder's), "labels" (its classes or
                          operations, by name)}
    DIR/encoder/          the encoder (`FortapEncoder.save_pretrained`: config.json and
                          model.safetensors)
    DIR/head.safetensors  the task's head (decoder, or heads), through `model.state_file`
    DIR/metrics.json      what the model measured, and on which data (`check` re-scores it)
    DIR/README.md         the card: data, the command that made it, metrics

`kind` says which weights stand beside model.json: `encoder` (the two above; a folder without
a kind is one) or a kind a task adds, which writes its own files through `write_meta` (cell
types' `boosted`: a LightGBM text model over the extracted features, no encoder, `inputs`
null). Nothing is unpickled: the weights are safetensors with checksums or a model's own text
format, the rest JSON. A folder built for another task or of another kind, or with labels this
version does not know, is refused by name. Each
task's door into its folder is a class with `load` and `save` (`FormulaPredictor`,
`CellTyper`, `TableAnswerer`); `fortap check-model DIR` reads `model.json`'s task and re-scores
the folder against its `metrics.json` (`CHECKED`, the task's `check` entry point).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from fortap.encoding.serialize import SerializeConfig
from fortap.errors import CheckpointError

if TYPE_CHECKING:  # torch is imported where weights are read or written: a folder of another
    # kind (a LightGBM model) is read without it
    import torch
    from torch import nn

    from fortap.model.encoder import FortapEncoder

T = TypeVar("T")
FORMAT = 1
MODELS_ENV = "FORTAP_MODELS"  # a folder holding the shipped models (cell-types/, table-qa/, ...)
MODEL_JSON, ENCODER, HEAD, METRICS, CARD = (
    "model.json", "encoder", "head.safetensors", "metrics.json", "README.md"
)  # fmt: skip
TOLERANCE = 0.005  # a re-scored metric may differ this much from the stored one
SAMPLE = "check"  # metrics.json's record of the quick check's sample and its scores
ENCODER_KIND = "encoder"  # the kind of a folder with encoder/ and head.safetensors


@dataclass(frozen=True)
class FolderMeta:
    task: str  # the registry's name, e.g. "cell-types"
    inputs: SerializeConfig | None  # None for a model that reads no sequences (a feature model)
    head: dict  # the head's own config (the formula decoder's; {} for fixed heads)
    labels: tuple[str, ...]  # the head's classes or operations, by name
    kind: str = ENCODER_KIND  # which weights the folder holds (module doc)


@dataclass(frozen=True)
class FolderKind:
    """One kind of folder a task loads (`Task.folders`, read by `tasks.folders.from_pretrained`):
    the files it needs beside model.json, and its task's door that loads it."""

    kind: str  # model.json's kind
    files: tuple[str, ...]  # what must stand beside model.json (files or folders)
    load: Callable[[Path], object]  # the door's `load` (e.g. `CellTyper.load`)


ENCODER_FILES = (ENCODER, HEAD)  # what an `encoder`-kind folder holds beside model.json


def save_folder(
    directory: str | Path, meta: FolderMeta, encoder: FortapEncoder, head: nn.Module,
    dtype: torch.dtype | None = None,
) -> Path:  # fmt: skip
    """Write `encoder`, `head` and `model.json` into `directory`; `dtype` (bfloat16 for a
    shipped model) narrows the float32 weights, which loading widens back."""
    from fortap.model.state_file import save_state

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    encoder.save_pretrained(directory / ENCODER, dtype)
    save_state(head, directory / HEAD, dtype)
    return write_meta(directory, meta)


def write_meta(directory: str | Path, meta: FolderMeta) -> Path:
    """Write `meta` as `directory`'s model.json (the folder is created)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    inputs = dataclasses.asdict(meta.inputs) if meta.inputs is not None else None
    record = {"format": FORMAT, "task": meta.task, "kind": meta.kind, "inputs": inputs,
              "head": meta.head, "labels": list(meta.labels)}  # fmt: skip
    (directory / MODEL_JSON).write_text(json.dumps(record, indent=1) + "\n")
    return directory


def folder_task(directory: str | Path) -> str:
    """The task a model folder was built for (its model.json), or a `CheckpointError`."""
    return _read(Path(directory))["task"]


def folder_kind(directory: str | Path) -> str:
    """The kind of model a folder holds (its model.json; `ENCODER_KIND` when it names none)."""
    return str(_read(Path(directory)).get("kind", ENCODER_KIND))


def read_meta(
    directory: str | Path, task: str, labels: Sequence[str] = (), kind: str = ENCODER_KIND
) -> FolderMeta:
    """`directory`'s model.json, refused unless it is a `task` model of `kind` whose labels are
    `labels` (when given), each by name."""
    directory = Path(directory)
    record = _read(directory)
    if record["task"] != task:
        raise CheckpointError(f"{directory} holds a {record['task']} model, not a {task} model")
    found = record.get("kind", ENCODER_KIND)
    if found != kind:
        raise CheckpointError(f"{directory} holds a {task} model of kind {found!r}, not {kind!r}")
    if labels and tuple(record.get("labels", ())) != tuple(labels):
        raise CheckpointError(f"{directory / MODEL_JSON}: trained on labels "
                              f"{record.get('labels')}, this fortap has {list(labels)}")  # fmt: skip
    inputs = None
    if kind == ENCODER_KIND or record.get("inputs") is not None:
        try:
            inputs = SerializeConfig(**record["inputs"])
        except (TypeError, ValueError, KeyError) as err:
            raise CheckpointError(f"{directory / MODEL_JSON}: bad inputs: {err}") from None
    head, names = dict(record.get("head") or {}), tuple(record.get("labels", ()))
    return FolderMeta(task, inputs, head, names, kind)


def load_encoder(directory: str | Path) -> FortapEncoder:
    from fortap.model.encoder import FortapEncoder

    return FortapEncoder.from_pretrained(Path(directory) / ENCODER)


def load_head(head: nn.Module, directory: str | Path) -> nn.Module:
    from fortap.model.state_file import load_state

    load_state(head, Path(directory) / HEAD)
    return head


def read_metrics(directory: str | Path) -> dict:
    """The folder's stored metrics.json ({} when it has none)."""
    path = Path(directory) / METRICS
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise CheckpointError(f"cannot read {path}: {err}") from None


def write_metrics(directory: str | Path, metrics: dict) -> None:
    (Path(directory) / METRICS).write_text(json.dumps(metrics, indent=1) + "\n")


HEADER = ("format", "task", "kind", "data", "split", "metrics")  # every metrics.json's first keys


def metrics_record(task: str, kind: str, data: str, split: str, metrics: dict[str, float],
                   detail: dict) -> dict:  # fmt: skip
    """A folder's metrics.json, one schema for every task: which task and kind, the data
    (relative to the repository) and what of it was scored (`split`), the headline numbers
    (`metrics`: name -> value), then the task's own detail (per fold, per split, intervals),
    which its check reads, and the quick check's `SAMPLE` record where one is stored."""
    header = {"format": FORMAT, "task": task, "kind": kind, "data": data, "split": split,
              "metrics": {k: float(v) for k, v in metrics.items()}}  # fmt: skip
    return {**header, **{k: v for k, v in detail.items() if k not in header}}


def stored_sample(directory: str | Path) -> dict | None:
    """The quick check's record in metrics.json (`{"sample": what, "scores": {metric: value}}`),
    None when the folder has none (`fortap check-model --store-sample` writes it)."""
    found = read_metrics(directory).get(SAMPLE)
    if found is None:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("scores"), dict):
        raise CheckpointError(f"{Path(directory) / METRICS}: its {SAMPLE!r} record is not "
                              '{"sample": ..., "scores": {...}}')  # fmt: skip
    return found


def store_sample(directory: str | Path, what: str, scores: dict[str, float]) -> None:
    """Keep the quick check's sample scores in the folder's metrics.json, beside the rest."""
    metrics = read_metrics(directory)
    metrics[SAMPLE] = {"sample": what, "scores": scores}
    write_metrics(directory, metrics)


def repository() -> Path | None:
    """The fortap repository this code runs from (a clone, or an editable install): the first
    folder above this file holding both pyproject.toml and models/; None for an installed
    wheel."""
    for folder in Path(__file__).resolve().parents:
        if (folder / "pyproject.toml").is_file() and (folder / "models").is_dir():
            return folder
    return None


def models_root() -> Path:
    """Where the shipped model folders are: `$FORTAP_MODELS`, else the repository's models/,
    else ./models (the first that is set or found)."""
    if os.environ.get(MODELS_ENV):
        return Path(os.environ[MODELS_ENV]).expanduser()
    return (repository() or Path.cwd()) / "models"


def shipped(name: str) -> Path:
    """The shipped model folder `name` (`cell-types`, `table-qa`, `encoders/fortap-small`)."""
    return models_root() / name


def where_shipped(folder: Path) -> str:
    """How to point fortap at its shipped models, for a message about a missing `folder`."""
    return (f"the shipped models come in the models/ folder of fortap's repository; set "
            f"{MODELS_ENV} to such a folder (looked in {folder.parent})")  # fmt: skip


def data_name(path: str | Path) -> str:
    """`path` as a folder's metrics and card name it: relative to the repository (or to the
    working folder, where fortap runs from an installed wheel)."""
    return os.path.relpath(Path(path).resolve(), repository() or Path.cwd())


def data_path(name: str) -> Path:
    """The data a folder names (`data_name`), found again from the repository."""
    return ((repository() or Path.cwd()) / name).resolve()


def write_card(
    directory: str | Path, title: str, data: str, command: str, lines: Sequence[str]
) -> None:
    """A README.md card: what the model is, its data, the command that made it, its metrics."""
    text = [f"# {title}", "", f"Data: `{data}` (relative to the repository).", "",
            "Made by (OUT/model):", "", f"    {command}", "", *lines, "",
            f"Check it: `fortap check-model` on this folder re-scores it and compares with "
            f"`{METRICS}` (its stored sample where it keeps one; `--full` re-scores all).",
            ""]  # fmt: skip
    (Path(directory) / CARD).write_text("\n".join(text))


@dataclass
class CheckReport:
    """A folder re-scored: per metric its stored value and today's (`rows`)."""

    rows: list[dict]  # {"metric", "stored", "now", "diff"}
    extra_targets: list[dict] = dataclasses.field(default_factory=list)  # task-specific checks
    what: str = ""  # which stored numbers were scored again, when not the obvious ones

    @staticmethod
    def of(stored: dict, now: dict, names: Sequence[str], what: str = "") -> CheckReport:
        rows = [{"metric": n, "stored": stored[n], "now": now[n], "diff": now[n] - stored[n]}
                for n in names]  # fmt: skip
        return CheckReport(rows, what=what)

    def targets(self) -> list[dict]:
        out = [{"name": f"{r['metric']} within {TOLERANCE} of the stored value",
                "value": r["diff"], "target": TOLERANCE, "met": abs(r["diff"]) <= TOLERANCE}
               for r in self.rows]  # fmt: skip
        return out + self.extra_targets

    @property
    def passed(self) -> bool:
        return all(t["met"] for t in self.targets())


def _read(directory: Path) -> dict:
    path = directory / MODEL_JSON
    if not path.is_file():
        old = [n for n in ("decoder.json", "head.json", "heads.safetensors")
               if (directory / n).is_file()]  # fmt: skip
        hint = (
            f" (it has {old[0]}: a folder of an older fortap; fine-tune it again)"
            if old
            else "; give the model/ folder that `fortap finetune TASK` wrote"
        )
        raise CheckpointError(f"{directory} is not a model folder (no {MODEL_JSON}){hint}")
    try:
        record = json.loads(path.read_text())
        if record.get("format") != FORMAT or "task" not in record:
            raise ValueError(f"format {record.get('format')!r}, this fortap reads {FORMAT}")
    except (OSError, ValueError, AttributeError) as err:
        raise CheckpointError(f"cannot read {path}: {err}") from None
    return record


_loaded: dict[tuple[Path, Callable], object] = {}
_loading = threading.Lock()  # one load at a time: two callers never load the same folder twice


def loaded_once(folder: str | Path, load: Callable[[Path], T]) -> T:
    """`load(folder)` the first time in this process, the same object afterwards (keyed by the
    resolved folder and the loader, so one folder named for two tasks is refused by each
    loader rather than handed over as the other's): a service or a bench asks many questions
    of one model."""
    key = (Path(folder).resolve(), load)
    with _loading:
        if key not in _loaded:
            _loaded[key] = load(Path(folder))
        return _loaded[key]  # type: ignore[return-value]
