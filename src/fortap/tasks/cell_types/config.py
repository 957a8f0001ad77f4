"""The cell-type run config (`CellTypesRunConfig`): one composed config per run.

Sections: `data` (the fold held out, the folds file, the sequence length), `encoder` (what
fine-tuning starts from), `optim` (AdamW; the head's and the encoder's peak learning rates),
`training` (updates, batch, the loss's class weighting, checkpoints) and `evaluation`. Compose
with `fortap.tasks.run_config.load_run_config`:

    fortap finetune cell-types ../shared/data/saus_ctc -o OUT --encoder minilm --set data.fold=2

The budget is one for every encoder: `training.steps` = 200 updates of 8 windows of at most 256
tokens (1,600 windows, about 0.7 of a pass over a fold's ~2,250 training windows). MiniLM trained
for 832 s and 1,522 s on folds 1 and 0 at one thread on the shared 2-core machine (other jobs
running), plus about a minute of reading SAUS and a few of scoring the held-out fold; the tiny
encoders take under a minute. No dev checks choose a state; the run ends in its last one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from fortap.encoding.serialize import SerializeConfig
from fortap.model.pretrained import ENCODERS
from fortap.tasks.cell_types.split import N_FOLDS
from fortap.tasks.run_config import FINETUNE_SHORTHANDS
from fortap.training.loop import TrainConfig
from fortap.training.optim import OptimConfig


@dataclass(frozen=True)
class CTData:
    fold: int = 0  # the fold held out and tested on (0..4); the other four are trained on
    folds: str = ""  # folds JSON; "" = the shipped saus_folds.json
    max_seq_len: int = 256  # tokens per window

    def __post_init__(self) -> None:
        if not 0 <= self.fold < N_FOLDS:
            raise ValueError(f"CTData.fold must lie in 0..{N_FOLDS - 1}, got {self.fold}")
        if self.max_seq_len < 16:
            raise ValueError(f"CTData.max_seq_len must be >= 16, got {self.max_seq_len}")

    def serialize(self) -> SerializeConfig:
        """How a window becomes a sequence (saved beside the model as its inputs)."""
        return SerializeConfig(max_seq_len=self.max_seq_len)


@dataclass(frozen=True)
class CTEncoder:
    name: str = "random"  # random (tiny, untrained), minilm, tuta or fortap
    checkpoint: str = ""  # encoder folder for tuta / fortap (e.g. models/encoders/fortap-tiny-1h)

    def __post_init__(self) -> None:
        if self.name not in ENCODERS:
            raise ValueError(f"CTEncoder.name must be one of {ENCODERS}, got {self.name!r}")
        if self.name in ("tuta", "fortap") and not self.checkpoint:
            raise ValueError(f"CTEncoder.checkpoint: the {self.name} encoder needs its folder")


@dataclass(frozen=True)
class CTOptim:
    lr: float = 1e-3  # peak learning rate of the head (and of new encoder tables)
    encoder_lr: float = 1e-4  # peak learning rate of the encoder's pretrained weights
    warmup: float = 0.1  # share of the updates warming up
    weight_decay: float = 0.01

    def __post_init__(self) -> None:
        if self.lr <= 0 or self.encoder_lr <= 0:
            raise ValueError(
                f"CTOptim.lr and encoder_lr must be > 0, got {self.lr}, {self.encoder_lr}"
            )

    def optimizer(self) -> OptimConfig:
        """The loop's `OptimConfig`: the encoder's lr, the head's groups scaled up to `lr`."""
        return OptimConfig(lr=self.encoder_lr, head_lr_scale=self.lr / self.encoder_lr,
                           warmup=self.warmup, weight_decay=self.weight_decay)  # fmt: skip


@dataclass(frozen=True)
class CTTraining:
    steps: int = 200  # fine-tuning updates (the budget; see the module doc)
    batch_size: int = 8  # windows per update
    class_power: float = 0.5  # class weights (N / (K n_c)) ** power (`model.class_weights`)
    seed: int = 0  # example order, head and (random) encoder initialisation
    log_every: int = 10  # updates between metrics.jsonl lines
    save_every: int = 25  # updates between checkpoints (a stopped run resumes from the last)
    bf16: Literal["auto", "on", "off"] = "auto"  # see fortap.training.loop
    device: str = "cpu"  # where the model trains and scores (see fortap.training.loop)
    progress: bool = True  # show the loop's progress bar

    def __post_init__(self) -> None:
        if self.class_power < 0:
            raise ValueError(f"CTTraining.class_power must be >= 0, got {self.class_power}")
        self.loop()  # the loop's own checks name their field

    def loop(self) -> TrainConfig:
        return TrainConfig(steps=self.steps, batch_size=self.batch_size, log_every=self.log_every,
                           save_every=self.save_every, seed=self.seed, bf16=self.bf16,
                           device=self.device, progress=self.progress)  # fmt: skip


@dataclass(frozen=True)
class CTEvaluation:
    batch_size: int = 16  # windows per evaluation batch
    rounds: int = 2000  # resamplings of files for the intervals
    model: str = ""  # `evaluate`: the fine-tuned model folder (a finetune run's OUT/model)

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.rounds < 1:
            raise ValueError("CTEvaluation.batch_size and rounds must be >= 1")


@dataclass(frozen=True)
class CellTypesRunConfig:
    """One cell-type run (fine-tuning and evaluation on one fold); see the module doc."""

    data: CTData = field(default_factory=CTData)
    encoder: CTEncoder = field(default_factory=CTEncoder)
    optim: CTOptim = field(default_factory=CTOptim)
    training: CTTraining = field(default_factory=CTTraining)
    evaluation: CTEvaluation = field(default_factory=CTEvaluation)


SHORTHANDS = {**FINETUNE_SHORTHANDS, "encoder_lr": "optim.encoder_lr"}  # CLI flag -> config key
