"""The fine-tuning recipe every task shares: where the encoder starts, the optimiser, training.

The run itself is written once, in `tasks/run.py` (`run`: options, torchrun, seeding, the loop
or a task's own fit, the model folder, scoring, metrics and the card); a task hands it its part
as a `TaskRun` (`tasks/task_run.py`). This module holds the settings that run reads.

A task's run config (`tasks/*/config.py`) holds three sections of these classes, `encoder`,
`optim` and `training`, with the task's own defaults given where the run config builds them
(`field(default_factory=...)`). A task that needs more subclasses the section and adds only its
own fields (formula prediction's `FPEncoder.freeze`, `FPTraining.sketch_warmup`; cell types'
`CTTraining.class_power`); none redefines a field declared here
(`tests/tasks/test_recipe.py` checks it).

The learning rates mean the same in every task:
- `optim.lr` (`--lr`): the peak rate of the task's head (the formula decoder, the cell-type
  head, the QA heads) and of the encoder's new embedding tables (numbers, trees, formats);
- `optim.encoder_lr` (`--encoder-lr`): the peak rate of the encoder's other weights.

Each reaches AdamW as the number given (`Optim.optimizer`, `training.optim.OptimConfig`): the
groups' `peak_lr` are `lr` and `encoder_lr`, and a checkpoint's `trainer.json` shows them.

The defaults of each task, and how older flags map onto these names, are in `TASK_RATES`.

`start_encoder(encoder, training, vocab_size)` builds the starting encoder of a run: `random`
(the tiny size, untrained), `minilm` (MiniLM's weights only), `tuta` / `fortap` with
`checkpoint` (a pretraining run's `encoder/` folder), or the name of an encoder folder shipped
in `models/encoders/` (e.g. `fortap-tiny-1h`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fortap.errors import FortapError
from fortap.model.pretrained import ENCODERS
from fortap.tasks.model_folder import shipped
from fortap.training.loop import TrainConfig
from fortap.training.optim import OptimConfig

SHIPPED_ENCODERS = shipped("encoders")

# task -> (default --lr, default --encoder-lr); the help of `fortap finetune` prints these
TASK_RATES = {
    "formula-prediction": (1e-3, 1e-3),
    "cell-types": (1e-3, 1e-4),
    "table-qa": (1e-3, 5e-5),
}
# How the older flags map: table-qa's --lr was the encoder's rate (now --encoder-lr) and its
# optim.head_lr the heads' (now --lr); formula-prediction's --lr alone set both rates.
RENAMED_KEYS = {"optim.head_lr": "optim.lr"}
# The recipe's keys only the training loop reads: a task that trains without it (a LightGBM
# fit, `TaskRun.fit`) refuses each of them by name (`TaskRun.ignores`).
LOOP_SETTINGS = ("optim", "training.steps", "training.batch_size", "training.grad_accum",
                 "training.dev_checks", "training.log_every", "training.save_every",
                 "training.max_minutes", "training.bf16", "training.device")  # fmt: skip


def shipped_encoders() -> list[str]:
    """Names of the encoder folders shipped in `models/encoders/` (those with a config.json)."""
    if not SHIPPED_ENCODERS.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_ENCODERS.iterdir() if (p / "config.json").is_file())


@dataclass(frozen=True)
class EncoderStart:
    name: str = "random"  # random (tiny, untrained), minilm, tuta or fortap (with checkpoint),
    # or a shipped encoder's name (a folder of models/encoders, e.g. fortap-tiny-1h)
    checkpoint: str = ""  # encoder folder for tuta / fortap (a pretraining run's encoder/)

    def __post_init__(self) -> None:
        if self.name in ("tuta", "fortap") and not self.checkpoint:
            raise ValueError(
                f"encoder.checkpoint: the {self.name} encoder needs a checkpoint folder "
                "(--checkpoint, a pretraining run's encoder/)"
            )
        if self.name not in ENCODERS and self.name not in shipped_encoders():
            known = (*ENCODERS, *shipped_encoders())
            raise ValueError(f"encoder.name must be one of {', '.join(known)}, got {self.name!r}")

    def folder(self) -> Path | None:
        """The encoder folder this start reads (None for random and minilm)."""
        if self.name in ("random", "minilm"):
            return None
        return Path(self.checkpoint) if self.name in ENCODERS else SHIPPED_ENCODERS / self.name


@dataclass(frozen=True)
class Optim:
    lr: float = 1e-3  # peak learning rate of the task's head and of new embedding tables
    encoder_lr: float = 1e-4  # peak learning rate of the encoder's pretrained weights
    warmup: float = 0.1  # share of the updates warming up
    weight_decay: float = 0.01
    clip_norm: float = 1.0  # max global gradient norm; 0 disables clipping
    freeze_word_embeddings: bool = False  # keep the encoder's word table at its start values

    def __post_init__(self) -> None:
        if self.lr <= 0 or self.encoder_lr <= 0:
            raise ValueError(
                f"optim.lr and optim.encoder_lr must be > 0, got {self.lr}, {self.encoder_lr}"
            )
        self.optimizer()  # the optimiser's own checks name their field

    def optimizer(self) -> OptimConfig:
        """The loop's `OptimConfig`, both rates as given (`lr` the heads', `encoder_lr` the
        encoder's)."""
        return OptimConfig(
            lr=self.lr, encoder_lr=self.encoder_lr, warmup=self.warmup,
            weight_decay=self.weight_decay, clip_norm=self.clip_norm,
            freeze_word_embeddings=self.freeze_word_embeddings,
        )  # fmt: skip


@dataclass(frozen=True)
class Training:
    steps: int = 200  # fine-tuning updates
    batch_size: int = 8  # examples per micro-batch
    grad_accum: int = 1  # micro-batches per update
    dev_checks: int = 0  # dev checks spread over the run, the best state kept; 0 = none
    seed: int = 0  # split, example order, head and (random) encoder initialisation
    log_every: int = 10  # updates between metrics.jsonl lines
    save_every: int = 0  # updates between checkpoints (0 = only at the end)
    max_minutes: float = 0.0  # stop with a checkpoint after this long (0 = no limit)
    threads: int = 0  # torch intra-op threads (0 = torch's default, one per core)
    bf16: Literal["auto", "on", "off"] = "auto"  # see fortap.training.loop
    device: str = "cpu"  # where the model trains and scores: cpu, cuda or cuda:N
    progress: bool = True  # show the loop's progress bar

    def __post_init__(self) -> None:
        if self.dev_checks < 0 or self.threads < 0:
            raise ValueError("training.dev_checks and training.threads must be >= 0")
        self.loop()  # the loop's own checks (steps, batch_size, ...) name their field

    def best(self) -> tuple[str, Literal["min", "max"]]:
        """The dev metric whose best state a run with dev checks ends in, and whether best is
        its lowest or highest value ("" = the last state); a task's training section says."""
        return "", "min"

    def loop(self) -> TrainConfig:
        """The shared loop's config: dev checks every steps // dev_checks updates."""
        every = max(1, self.steps // self.dev_checks) if self.dev_checks else 0
        metric, mode = self.best()
        return TrainConfig(
            steps=self.steps, batch_size=self.batch_size, grad_accum=self.grad_accum,
            log_every=self.log_every, eval_every=every, save_every=self.save_every,
            seed=self.seed, bf16=self.bf16, device=self.device, progress=self.progress,
            max_minutes=self.max_minutes, keep_best=metric if self.dev_checks else "",
            keep_best_mode=mode,
        )  # fmt: skip


def start_encoder(encoder: EncoderStart, training: Training, vocab_size: int):
    """The encoder a run starts from. Its freshly initialised weights (all of `random`, the
    embeddings MiniLM has no weights for) are drawn after seeding torch with the run's seed, so
    a run is the same in every process; `random` is the tiny size over the whole vocabulary."""
    import torch

    from fortap.model.config import ModelConfig
    from fortap.model.encoder import FortapEncoder
    from fortap.model.pretrained import baseline_encoder

    if training.threads:
        torch.set_num_threads(training.threads)
    torch.manual_seed(training.seed)
    try:
        if encoder.name not in ENCODERS:  # a shipped encoder, by name
            return FortapEncoder.from_pretrained(encoder.folder())
        tiny = ModelConfig.tiny(vocab_size=vocab_size, hidden_dropout=0.0)
        config = tiny if encoder.name == "random" else None
        return baseline_encoder(encoder.name, encoder.checkpoint or None, config)
    except ValueError as err:
        raise FortapError(str(err)) from None
