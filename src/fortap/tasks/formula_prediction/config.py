"""The formula-prediction run config (`FormulaRunConfig`): one composed config per run.

Sections: `data` (which examples, and their augmentation per draw), `encoder`, `optim` and
`training` (the shared recipe, `fortap.tasks.recipe`, plus the frozen layers, the sketch
warm-up and the kept state), `decoder` (the new formula decoder's sizes; `fp_paper.yaml`
selects the reference's 3 layers and 8 heads), `evaluation` (dev and test
examples, per-workbook caps, dev decoding, learning curve) and `decoding` (beam search; the dev
checks may decode with a smaller beam). Compose with `fortap.tasks.run_config.load_run_config`:

    fortap finetune formula-prediction TABLES -o OUT --config fp_paper --set training.steps=500

The defaults are what `fortap finetune formula-prediction` did before configs existed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from fortap.tasks.formula_prediction.decoder import DecoderConfig
from fortap.tasks.formula_prediction.decoding import DecodeConfig
from fortap.tasks.formula_prediction.examples import (
    MODE_OF_SETTING,
    TRAIN_SETTINGS,
    FormulaExamplesConfig,
    with_serialize,
)
from fortap.tasks.recipe import EncoderStart, Optim, Training
from fortap.tasks.run_config import FINETUNE_SHORTHANDS

DEV_LOSS = "eval/loss/formula"  # the dev criterion of the kept state (sketch + range loss)
DEV_TOP1 = "eval/formula_top1"  # ... or dev formula top-1 of the decoded dev examples
KEEP_BEST = {"loss": (DEV_LOSS, "min"), "formula_top1": (DEV_TOP1, "max")}  # key -> (metric, mode)


AUGMENT_KINDS = ("synonyms", "numbers", "insert", "transpose")  # in the order they are applied


@dataclass(frozen=True)
class FPAugment:
    """Per-draw probability of each augmentation of a training example (0 = never; all 0 by
    default, so a run without this section trains on the examples as built). Each kind keeps
    the gold formula exactly right for the changed table (`fortap.tasks.formula_prediction.augment`)."""

    synonyms: float = 0.0  # header and label words replaced by synonyms (Total -> Sum)
    numbers: float = 0.0  # data numbers scaled or jittered (sign, decade, integer-ness kept)
    insert: float = 0.0  # empty rows and columns inserted inside the table (references follow)
    transpose: float = 0.0  # the table transposed (references and header trees follow)

    def __post_init__(self) -> None:
        for name in AUGMENT_KINDS:
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(
                    f"FPAugment.{name} must be a probability in [0, 1], got {getattr(self, name)}"
                )

    @property
    def active(self) -> bool:
        return any(getattr(self, name) > 0 for name in AUGMENT_KINDS)


@dataclass(frozen=True)
class FPData:
    max_seq_len: int = 128  # tokens per example
    max_train: int = 0  # train on at most this many examples, spread over the split (0 = all)
    train_per_book: int = 0  # at most this many training examples of one workbook, spread
    # evenly within it (0 = all)
    corpus: str = ""  # corpus folder whose split.json puts each workbook on its side
    setting: Literal["paper", "sheet"] = "paper"  # paper: no other formula in the input; sheet:
    # the other formulas shown as their tokens (and copy targets built for decoder.copy)
    augment: FPAugment = field(default_factory=FPAugment)  # training examples changed per draw
    train: str = "full"  # full, or low_resource: the paper's 20 % of the (capped) training
    # examples, drawn with the run's seed

    def __post_init__(self) -> None:
        if self.max_seq_len < 16:
            raise ValueError(f"FPData.max_seq_len must be >= 16, got {self.max_seq_len}")
        if self.setting not in ("paper", "sheet"):
            raise ValueError(f"FPData.setting must be 'paper' or 'sheet', got {self.setting!r}")
        if self.train not in TRAIN_SETTINGS:
            raise ValueError(
                f"FPData.train must be one of {tuple(TRAIN_SETTINGS)}, got {self.train!r}"
            )
        for name in ("max_train", "train_per_book"):
            if getattr(self, name) < 0:
                raise ValueError(f"FPData.{name} must be >= 0, got {getattr(self, name)}")


@dataclass(frozen=True)
class FPEncoder(EncoderStart):
    freeze: int = 0  # transformer layers frozen from the bottom (-1 = all; the embeddings, which
    # hold the new number / tree-position / format tables, always train)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.freeze < -1:
            raise ValueError(f"FPEncoder.freeze must be >= -1 (-1 = all), got {self.freeze}")


@dataclass(frozen=True)
class FPTraining(Training):
    sketch_warmup: float = 0.25  # share of the updates with the range loss switched off
    range_weight: float = 1.0  # weight of the range loss after the warm phase
    keep_best: Literal["loss", "formula_top1"] = "loss"  # the kept state: lowest dev loss, or
    # highest dev formula top-1 (needs evaluation.dev_decode); the first of equal values wins

    def __post_init__(self) -> None:
        if self.keep_best not in KEEP_BEST:  # before the shared checks, which read `best`
            raise ValueError(
                f"FPTraining.keep_best must be one of {tuple(KEEP_BEST)}, got {self.keep_best!r}"
            )
        super().__post_init__()
        if not 0.0 <= self.sketch_warmup <= 1.0:
            raise ValueError(
                f"FPTraining.sketch_warmup must be in [0, 1], got {self.sketch_warmup}"
            )
        if self.range_weight < 0:
            raise ValueError("FPTraining.range_weight must be >= 0")

    def best(self) -> tuple[str, Literal["min", "max"]]:
        return KEEP_BEST[self.keep_best]  # type: ignore[return-value]

    @property
    def warmup_updates(self) -> int:
        return int(self.steps * self.sketch_warmup)


@dataclass(frozen=True)
class FPEvaluation:
    max_dev: int = 64  # dev examples of the dev checks, spread evenly over the dev split
    dev_per_book: int = 0  # at most this many dev examples of one workbook, spread evenly
    # within it, before max_dev (0 = all)
    dev_decode: bool = True  # each dev check also decodes the dev examples (formula / sketch
    # top-1 and top-k in metrics.jsonl; eval/decode_seconds says what it cost)
    dev_beam: int = 0  # beam of the dev decoding (0 = decoding.beam); 1 is greedy and cheapest
    max_test: int = 0  # evaluate on N test examples spread evenly over the split (0 = all)
    test_per_book: int = 0  # at most this many test examples of one workbook, spread evenly
    # within it, before max_test (0 = all)
    batch_size: int = 16  # examples per evaluation batch (dev and test)
    curve: tuple[float, ...] = ()  # extra training shares for the learning curve (full is added)
    model: str = ""  # `evaluate`: the fine-tuned model folder (a finetune run's OUT/model)

    def __post_init__(self) -> None:
        if self.max_dev < 1 or self.batch_size < 1:
            raise ValueError("FPEvaluation.max_dev and batch_size must be >= 1")
        for name in ("max_test", "dev_per_book", "test_per_book", "dev_beam"):
            if getattr(self, name) < 0:
                raise ValueError(f"FPEvaluation.{name} must be >= 0, got {getattr(self, name)}")
        if any(not 0.0 < s < 1.0 for s in self.curve):
            raise ValueError(f"FPEvaluation.curve shares must be in (0, 1), got {self.curve}")


@dataclass(frozen=True)
class FormulaRunConfig:
    """One formula-prediction run (fine-tuning and evaluation); see the module doc."""

    data: FPData = field(default_factory=FPData)
    encoder: FPEncoder = field(default_factory=FPEncoder)  # random
    decoder: DecoderConfig = field(
        default_factory=lambda: DecoderConfig(layers=1, heads=2, dropout=0.0)
    )
    optim: Optim = field(default_factory=lambda: Optim(lr=1e-3, encoder_lr=1e-3, warmup=0.05))
    training: FPTraining = field(default_factory=lambda: FPTraining(dev_checks=2))
    evaluation: FPEvaluation = field(default_factory=FPEvaluation)
    decoding: DecodeConfig = field(default_factory=DecodeConfig)

    def __post_init__(self) -> None:
        if self.decoder.copy and self.data.setting != "sheet":
            raise ValueError(
                "decoder.copy needs data.setting=sheet (only there are other formulas shown)"
            )
        if self.training.keep_best == "formula_top1" and not (
            self.training.dev_checks and self.evaluation.dev_decode
        ):
            raise ValueError(
                "FPTraining.keep_best formula_top1 needs dev checks (training.dev_checks > 0) "
                "and dev decoding (evaluation.dev_decode)"
            )

    def examples(self) -> FormulaExamplesConfig:
        """How the run turns formula cells into examples (saved beside the model as its
        inputs): `data.max_seq_len` tokens; other formulas shown as values (paper setting) or
        as their tokens (sheet setting)."""
        mode = MODE_OF_SETTING[self.data.setting]
        return with_serialize(
            FormulaExamplesConfig(), max_seq_len=self.data.max_seq_len, formula_mode=mode
        )

    def dev_decoding(self) -> DecodeConfig:
        """The decoding of the dev checks: `decoding` with `evaluation.dev_beam` when set (a
        beam below top_k finds fewer candidates, so its top-k counts fewer guesses)."""
        return replace(self.decoding, beam=self.evaluation.dev_beam or self.decoding.beam)


SHORTHANDS = {  # CLI flag -> config key
    **FINETUNE_SHORTHANDS,
    "corpus": "data.corpus",
    "max_test": "evaluation.max_test",
    "curve": "evaluation.curve",
    "beam": "decoding.beam",
}
