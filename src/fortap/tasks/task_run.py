"""`TaskRun`: what a task hands the one fine-tuning run (`fortap.tasks.run.run`).

The run is written once (`tasks/run.py`): it refuses the options the task does not read,
joins the torchrun group (`Dist`), starts the encoder and seeds, trains through the one loop
(`training/loop.py`) or the task's own `fit`, saves the model folder, predicts, scores, and
writes `metrics.json`, `predictions.jsonl`, the folder's `metrics.json` and its card. A task
supplies the rest, as HF's `Trainer(compute_metrics=...)` and torchtune's recipes have it:

- `examples(paths)`: its data as a `RunData` (the training examples, the dev examples of the
  loop's dev loss, what scoring reads);
- `model(encoder, data)`: its head over the started encoder, an `nn.Module` whose
  `forward(batch)` returns `(loss, logs)`; `collate(examples)`: a `Batch`;
- `hooks(model, data, run_dir, is_main)`: optional `Hooks` of the loop (a drawn example made
  anew, a step hook, dev checks, work after training);
- `fit(data, seed, console)`: set for a task that trains without the loop (LightGBM), None
  otherwise;
- `variants(data)`: more trainings of the same recipe on other training sets (a learning
  curve), each trained as the main one, in `OUT/training-NAME`, and predicted on;
- `save(model, folder)`: the model folder; returns the model as stored, which is scored;
- `predict(model, data)`: the model's outputs on the held-out side;
- `score(predicted, trained, data)`: a `Scored` (what the run writes and returns);
- `report(out, scored, console)`: the task's report.md, plots and printed lines.

`cfg` is the task's run config: its `encoder`, `optim` and `training` sections are the
recipe's (`tasks/recipe.py`). `ignores` names the config keys (or whole sections) this kind of
run never reads; one set away from its default is refused by name before anything runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console

if TYPE_CHECKING:  # torch is imported where a loop runs: a LightGBM run never needs it
    from torch import nn

    from fortap.encoding.example import Batch, Example
    from fortap.training.loop import TrainResult


@dataclass
class RunData:
    """A task's data for one run."""

    train: Sequence[Any]  # what the loop draws batches from (a `fit` task's own training set)
    dev: Sequence[Example] = ()  # examples of the loop's dev loss at each dev check
    dev_batch_size: int = 16  # examples per dev batch
    vocab_size: int = 0  # the tokenizer's, for a `random` encoder
    held: Any = None  # what `predict` and `score` read (test examples, sheets, questions)
    note: str = ""  # printed once: what the split holds


@dataclass
class Hooks:
    """What a task adds to the loop (`training.loop.train` documents each call)."""

    draw: Callable[[int, int], Example] | None = None  # makes each drawn example (augmentation)
    on_step: Callable[[int], None] | None = None  # before each update (a loss switched on)
    on_eval: Callable[[nn.Module, int], dict[str, float]] | None = None  # dev values per check
    done: Callable[[nn.Module], None] | None = None  # after training (the model's last state)


@dataclass
class Trained:
    """What training left: the model as stored and how it got there."""

    model: Any  # as the folder holds it (`TaskRun.save`'s return)
    folder: Path  # the model folder
    result: TrainResult | None = None  # the loop's (None for a `fit`)
    seconds: float = 0.0  # training time in this process
    variants: dict[str, tuple[RunData, Any]] = field(default_factory=dict)  # name -> (its data,
    # its model's predictions)


@dataclass
class Card:
    title: str  # the card's heading
    lines: list[str]  # what it says after the command (metrics, use)


@dataclass
class Scored:
    """What the run writes after scoring, and what it returns."""

    value: Any  # `run`'s return (the task's record)
    metrics: dict  # OUT/metrics.json
    predictions: Sequence[dict] | None = None  # OUT/predictions.jsonl, a record a line
    folder_metrics: dict | None = None  # OUT/model/metrics.json's detail (check-model reads it)
    card: Card | None = None  # OUT/model/README.md
    split: str = ""  # what of the data the folder's headline numbers were scored on
    headline: dict[str, float] = field(default_factory=dict)  # those numbers, by name


class TaskRun(Protocol):
    """A task's part of the fine-tuning run (module doc); subclass it for the defaults."""

    name: str  # the registry's name, e.g. "cell-types" (the card's command)
    kind: str  # what the run trains, for messages: "encoder", "boosted", ...
    cfg: Any  # the task's run config
    ignores: tuple[str, ...] = ()  # config keys or sections this kind never reads
    ignores_why: str = ""  # why, for the refusal
    fit: Callable[[RunData, int, Console], Any] | None = None  # trains without the loop
    # (data, seed, console): a method of a task that fits its own model

    def examples(self, paths: Sequence[str | Path], console: Console) -> RunData: ...

    def model(self, encoder: nn.Module, data: RunData) -> nn.Module:
        raise NotImplementedError(f"{self.name} ({self.kind}) trains with fit, not the loop")

    def collate(self, examples: list[Example]) -> Batch:
        raise NotImplementedError(f"{self.name} ({self.kind}) trains with fit, not the loop")

    def hooks(self, model: nn.Module, data: RunData, run_dir: Path, is_main: bool) -> Hooks:
        return Hooks()

    def variants(self, data: RunData) -> dict[str, RunData]:
        return {}

    def save(self, model: Any, folder: Path) -> Any: ...

    def predict(self, model: Any, data: RunData) -> Any: ...

    def score(self, predicted: Any, trained: Trained, data: RunData) -> Scored: ...

    def report(self, out: Path, scored: Scored, console: Console) -> None:
        return None
