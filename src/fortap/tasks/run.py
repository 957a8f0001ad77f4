"""The one fine-tuning run of every task (`run`), and its training stage (`train_model`).

`run(task, paths, out)` does, for any `TaskRun` (`tasks/task_run.py`):

1. refuses each option the task's kind does not read, by its flag (`refuse_ignored`);
2. joins the torchrun group when there is one (`Dist`; a `fit` task is one process);
3. reads the task's data (`task.examples`) and prints its note;
4. trains: `task.fit(data, seed, console)`, or `train_model` in `OUT/training/` (a rerun resumes
   there), then each of the task's variants in `OUT/training-NAME/`; a run stopped early
   (`stop_at`, a time limit) returns None with its checkpoint kept, as ranks other than 0 do;
5. saves `OUT/model` (`task.save`), predicts and scores the model as stored;
6. writes `OUT/metrics.json`, `OUT/predictions.jsonl`, `OUT/model/metrics.json` (with the data
   named relative to the repository, which `fortap check-model` reads) and the card, whose
   command is the one that makes this config (`run_config.finetune_command`); then the task's
   report.

`train_model` is the loop's side: the starting encoder (`recipe.start_encoder`, which seeds
torch with `training.seed`), `random.Random(training.seed)` seeding the head's initialisation
and then drawing the batches' order (`ShuffledBatches`, this rank's share), dev batches when
the run has dev checks, and `training.loop.train` on `training.device` with the two peak rates
as the config holds them (`recipe.Optim.optimizer`).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from fortap.errors import FortapError
from fortap.tasks import model_folder
from fortap.tasks.recipe import start_encoder
from fortap.tasks.run_config import FINETUNE_SHORTHANDS, finetune_command, overrides_of
from fortap.tasks.task_run import RunData, Scored, TaskRun, Trained

FLAG_OF = {key: "--" + flag.replace("_", "-") for flag, key in FINETUNE_SHORTHANDS.items()}


def run(task: TaskRun, paths: Sequence[str | Path], out: str | Path,
        console: Console | None = None, stop_at: int | None = None) -> Any | None:  # fmt: skip
    """Fine-tune, save, score and write as the module doc says; the task's record, or None
    when stopped before the last update (and on ranks other than 0)."""
    console, out = console or Console(), Path(out)
    refuse_ignored(task)
    dist = _join(task)
    try:
        data = task.examples(paths, console)
        if data.note and _main(dist):
            console.print(data.note)
        trained = _train(task, data, out, dist, stop_at, console)
        if trained is None:
            return None
        scored = task.score(task.predict(trained.model, data), trained, data)
        write_outputs(task, scored, paths, out)
        task.report(out, scored, console)
        return scored.value
    finally:
        _leave(dist)


def refuse_ignored(task: TaskRun) -> None:
    """A `FortapError` naming the first option set away from its default that `task`'s kind
    never reads (its flag where it has one, and its config key)."""
    for override in overrides_of(task.cfg):
        key = override.split("=", 1)[0]
        if any(key == i or key.startswith(i + ".") for i in task.ignores):
            flag = f"{FLAG_OF[key]} ({key})" if key in FLAG_OF else key
            why = f" ({task.ignores_why})" if task.ignores_why else ""
            raise FortapError(f"{task.name} of kind {task.kind} does not read {flag}{why}; "
                              "leave it out")  # fmt: skip


def train_model(task: TaskRun, data: RunData, run_dir: str | Path, dist=None,
                stop_at: int | None = None, encoder=None, resume: bool = True):  # fmt: skip
    """(the trained model in eval mode, the loop's `TrainResult`): `task`'s head over
    `encoder` (default: the config's start) trained on `data.train` in `run_dir`, resuming
    from its checkpoints (module doc)."""
    import torch

    from fortap.training.distributed import Dist
    from fortap.training.loop import train
    from fortap.training.shuffled import ShuffledBatches

    cfg, dist = task.cfg, dist or Dist()
    if not data.train:
        raise FortapError(f"{task.name}: no training examples")
    if encoder is None:
        encoder = start_encoder(cfg.encoder, cfg.training, data.vocab_size)
    rng = random.Random(cfg.training.seed)
    torch.manual_seed(rng.randrange(2**31))  # the head's initialisation, the same on every rank
    model = task.model(encoder, data)
    hooks = task.hooks(model, data, Path(run_dir), dist.is_main)
    batches = ShuffledBatches(data.train, task.collate, cfg.training.batch_size, rng,
                              dist.rank, dist.world, draw=hooks.draw)  # fmt: skip
    loop = cfg.training.loop()
    dev, size = (data.dev if loop.eval_every else ()), data.dev_batch_size
    dev_batches = [task.collate(list(dev[i : i + size])) for i in range(0, len(dev), size)]
    result = train(model, batches, loop, cfg.optim.optimizer(), run_dir, dev_batches,
                   resume=resume, stop_at=stop_at, dist=dist, on_step=hooks.on_step,
                   on_eval=hooks.on_eval)  # fmt: skip
    if hooks.done is not None:
        hooks.done(model)
    return model.eval(), result


def write_outputs(task: TaskRun, scored: Scored, paths: Sequence[str | Path], out: Path) -> None:
    """OUT/metrics.json, OUT/predictions.jsonl, and the model folder's metrics.json and card."""
    out.mkdir(parents=True, exist_ok=True)
    if scored.predictions is not None:
        with open(out / "predictions.jsonl", "w", encoding="utf-8") as fh:
            for record in scored.predictions:
                fh.write(json.dumps(record) + "\n")
    (out / "metrics.json").write_text(json.dumps(scored.metrics, indent=1) + "\n")
    name = model_folder.data_name(paths[0])
    if scored.folder_metrics is not None:
        record = model_folder.metrics_record(task.name, task.kind, name, scored.split,
                                             scored.headline, scored.folder_metrics)  # fmt: skip
        model_folder.write_metrics(out / "model", record)
    if scored.card is not None:
        command = finetune_command(task.name, name, task.cfg)
        model_folder.write_card(out / "model", scored.card.title, name, command,
                                scored.card.lines)  # fmt: skip


def _train(task: TaskRun, data: RunData, out: Path, dist, stop_at: int | None,
           console: Console) -> Trained | None:  # fmt: skip
    """Training (module doc, step 4) and the saved model; None when stopped early or off
    rank 0."""
    started = time.perf_counter()
    result = None
    if task.fit is not None:
        model = task.fit(data, task.cfg.training.seed, console)
    else:
        model, result = train_model(task, data, out / "training", dist, stop_at)
        if result.step < task.cfg.training.steps:
            if _main(dist):
                console.print(f"stopped at update {result.step}; rerun the same command to resume")
            return None
    seconds = time.perf_counter() - started
    variants = {}
    for name, part in task.variants(data).items():
        small, _ = train_model(task, part, out / f"training-{name}", dist)
        variants[name] = (part, task.predict(small, part) if _main(dist) else None)
    if not _main(dist):
        return None
    folder = out / "model"
    return Trained(task.save(model, folder), folder, result, seconds, variants)


def _main(dist) -> bool:
    """Whether this process writes: rank 0, or the one process of a `fit` task (no `Dist`)."""
    return dist is None or dist.is_main


def _join(task: TaskRun):
    """This process's `Dist`: torchrun's group for a loop task; a `fit` task refuses one and
    runs without (None: torch is not imported for it)."""
    if task.fit is not None:
        import os

        if int(os.environ.get("WORLD_SIZE", "1")) > 1:
            raise FortapError(f"{task.name} of kind {task.kind} trains without the loop, in one "
                              "process: run it without torchrun")  # fmt: skip
        return None
    from fortap.training.distributed import init_from_env

    return init_from_env()


def _leave(dist) -> None:
    if dist is not None:
        from fortap.training.distributed import shutdown

        shutdown(dist)
