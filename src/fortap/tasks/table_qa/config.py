"""The table-QA run config (`QARunConfig`), composed as the other tasks' run configs:

    fortap finetune table-qa ../shared/data/hitab -o OUT --set training.steps=2000

Sections: `data` (sequence length, training cap), `encoder`, `optim` and `training` (the
shared recipe, `fortap.tasks.recipe`; dev checks keep the state best by dev accuracy),
`evaluation` (which splits, the saved model) and `decoding` (`decoding.DecodeConfig`: how the
model's scores become an answer; the saved folder keeps it, so `fortap ask` decodes the same).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from fortap.encoding.serialize import SerializeConfig
from fortap.tasks.recipe import EncoderStart, Optim, Training
from fortap.tasks.run_config import FINETUNE_SHORTHANDS
from fortap.tasks.table_qa.decoding import DecodeConfig

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
class QATraining(Training):
    """The shared training section; with dev checks the run ends in its dev-best state."""

    def best(self) -> tuple[str, Literal["min", "max"]]:
        return DEV_ACCURACY, "max"


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
    encoder: EncoderStart = field(default_factory=lambda: EncoderStart("minilm"))
    optim: Optim = field(default_factory=lambda: Optim(lr=1e-3, encoder_lr=5e-5, warmup=0.06))
    training: QATraining = field(
        default_factory=lambda: QATraining(steps=2000, dev_checks=4, save_every=100)
    )
    evaluation: QAEvaluation = field(default_factory=QAEvaluation)
    decoding: DecodeConfig = field(default_factory=DecodeConfig)  # what the saved model decodes
    # with (its model.json's head.decoding), the dev checks included


SHORTHANDS = dict(FINETUNE_SHORTHANDS)  # CLI flag -> config key
