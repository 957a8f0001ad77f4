"""The table-QA run config (`QARunConfig`), composed as the other tasks' run configs:

    fortap finetune table-qa ../shared/data/hitab -o OUT --set training.steps=2000

Sections: `data` (sequence length, training cap), `encoder` (what fine-tuning starts from),
`optim`, `training` (the shared loop's settings, dev checks) and `evaluation` (which splits,
the saved model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from fortap.encoding.serialize import SerializeConfig
from fortap.model.pretrained import ENCODERS
from fortap.tasks.run_config import FINETUNE_SHORTHANDS
from fortap.training.loop import TrainConfig
from fortap.training.optim import OptimConfig

DEV_ACCURACY = "eval/qa_accuracy"  # execution accuracy of the dev checks (the kept state's)


@dataclass(frozen=True)
class QAData:
    max_seq_len: int = 256  # tokens per question, [CLS] and the question included
    max_train: int = 0  # train on at most this many questions, spread over the file (0 = all)

    def __post_init__(self) -> None:
        if self.max_seq_len < 32 or self.max_train < 0:
            raise ValueError("QAData.max_seq_len must be >= 32 and max_train >= 0")

    def serialize(self) -> SerializeConfig:
        return SerializeConfig(max_seq_len=self.max_seq_len)


@dataclass(frozen=True)
class QAEncoder:
    name: str = "minilm"  # random (tiny, untrained), minilm, tuta or fortap
    checkpoint: str = ""  # a pretraining run's encoder/ folder for tuta / fortap

    def __post_init__(self) -> None:
        if self.name not in ENCODERS:
            raise ValueError(f"QAEncoder.name must be one of {ENCODERS}, got {self.name!r}")


@dataclass(frozen=True)
class QAOptim:
    lr: float = 5e-5  # peak learning rate of the encoder
    head_lr: float = 1e-3  # peak learning rate of the two heads and new embeddings
    warmup: float = 0.06
    weight_decay: float = 0.01
    clip_norm: float = 1.0

    def __post_init__(self) -> None:
        if self.lr <= 0 or self.head_lr <= 0:
            raise ValueError("QAOptim.lr and head_lr must be > 0")

    def optimizer(self) -> OptimConfig:
        return OptimConfig(lr=self.lr, head_lr_scale=self.head_lr / self.lr, warmup=self.warmup,
                           weight_decay=self.weight_decay, clip_norm=self.clip_norm)  # fmt: skip


@dataclass(frozen=True)
class QATraining:
    steps: int = 2000  # updates
    batch_size: int = 8
    dev_checks: int = 4  # dev execution-accuracy checks over the run, best state kept; 0 = none
    save_every: int = 100  # updates between checkpoints (a killed run resumes from the last)
    max_minutes: float = 0.0  # stop with a checkpoint after this long (0 = no limit)
    seed: int = 0
    log_every: int = 10
    bf16: Literal["auto", "on", "off"] = "auto"
    device: str = "cpu"  # where the model trains and answers (see fortap.training.loop)
    progress: bool = True

    def __post_init__(self) -> None:
        if self.dev_checks < 0:
            raise ValueError(f"QATraining.dev_checks must be >= 0, got {self.dev_checks}")
        self.loop()

    def loop(self) -> TrainConfig:
        every = max(1, self.steps // self.dev_checks) if self.dev_checks else 0
        return TrainConfig(
            steps=self.steps, batch_size=self.batch_size, log_every=self.log_every,
            eval_every=every, save_every=self.save_every, seed=self.seed, bf16=self.bf16,
            device=self.device, progress=self.progress, max_minutes=self.max_minutes,
            keep_best=DEV_ACCURACY if self.dev_checks else "", keep_best_mode="max",
        )  # fmt: skip


@dataclass(frozen=True)
class QAEvaluation:
    max_dev: int = 400  # dev questions of each dev check, spread over the file (0 = all)
    splits: tuple[str, ...] = ("dev", "test", "test_qc")  # the files evaluated at the end
    model: str = ""  # a saved model folder (evaluate)
    batch_size: int = 16

    def __post_init__(self) -> None:
        if self.max_dev < 0:
            raise ValueError(f"QAEvaluation.max_dev must be >= 0, got {self.max_dev}")


@dataclass(frozen=True)
class QARunConfig:
    data: QAData = field(default_factory=QAData)
    encoder: QAEncoder = field(default_factory=QAEncoder)
    optim: QAOptim = field(default_factory=QAOptim)
    training: QATraining = field(default_factory=QATraining)
    evaluation: QAEvaluation = field(default_factory=QAEvaluation)


SHORTHANDS = dict(FINETUNE_SHORTHANDS)  # CLI flag -> config key
