"""The cell-type run config (`CellTypesRunConfig`): one composed config per run.

Sections: `model` (which kind of model: a fine-tuned encoder, or LightGBM on the extracted
features), `data` (the fold held out, or none; the folds file, the sequence length), `encoder`,
`optim` and `training` (the shared recipe, `fortap.tasks.recipe`, plus the loss's class
weighting) and `evaluation`. Compose with `fortap.tasks.run_config.load_run_config`:

    fortap finetune cell-types ../shared/data/saus_ctc -o OUT --encoder minilm --set data.fold=2
    fortap finetune cell-types ../shared/data/saus_ctc -o OUT --set model.kind=boosted \
        --set data.all_folds=true --threads 2          # the shipped model (models/cell-types)
    fortap finetune cell-types ../shared/data/saus_ctc -o OUT --set model.kind=hybrid \
        --encoder fortap-small --set data.all_folds=true --threads 2   # the hybrid (hybrid_run)

`data.formulas=SET` (boosted kind) adds the formula-labelled set's train split (`formula_set`,
at most `data.formulas_cap` cells a source) to every training side; SAUS's folds are held out as
before, and the saved booster is also scored on the set's dev split (and test, with
`evaluation.formulas_test`, once for a shipped model).

`model.kind=boosted` fits `boosted` (its settings chosen on the training side, module doc
there) instead of fine-tuning: it reads no encoder, so of the shared recipe only
`training.seed` and `training.threads` (LightGBM's threads) apply. With `data.all_folds` it
trains on every fold, after measuring the same recipe on the five folds (`boosted_run`).

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
from fortap.tasks.cell_types.boosted_typer import KIND as BOOSTED_KIND
from fortap.tasks.cell_types.hybrid_typer import KIND as HYBRID
from fortap.tasks.cell_types.split import N_FOLDS
from fortap.tasks.model_folder import ENCODER_KIND
from fortap.tasks.recipe import LOOP_SETTINGS, EncoderStart, Optim, Training
from fortap.tasks.run_config import FINETUNE_SHORTHANDS

ENCODER, BOOSTED = ENCODER_KIND, BOOSTED_KIND  # the kinds of model folder (model.json's kind)
FIT_IGNORES = (*LOOP_SETTINGS, "training.class_power")  # what the LightGBM kinds never read


@dataclass(frozen=True)
class CTModel:
    kind: Literal["encoder", "boosted", "hybrid"] = ENCODER  # a fine-tuned encoder with a
    # linear head, LightGBM on the extracted features (`boosted`), or LightGBM on those and a
    # frozen encoder's cell states (`hybrid`, `hybrid_run`)

    def __post_init__(self) -> None:
        if self.kind not in (ENCODER, BOOSTED, HYBRID):
            raise ValueError(
                f"model.kind must be {ENCODER} or {BOOSTED} (or {HYBRID}), got {self.kind!r}"
            )


@dataclass(frozen=True)
class CTData:
    fold: int = 0  # the fold held out and tested on (0..4); the other four are trained on
    all_folds: bool = False  # train on every fold instead (model.kind=boosted; fold unused)
    folds: str = ""  # folds JSON; "" = the shipped saus_folds.json
    max_seq_len: int = 256  # tokens per window
    formulas: str = ""  # the formula-labelled set (`fortap build-cell-types` OUT), boosted
    # kind only: its train split joins every training side, its dev split is scored
    formulas_cap: int = 15000  # labelled cells a source of that set gives to training (whole
    # tables); 0: none, the set is only scored

    def __post_init__(self) -> None:
        if not 0 <= self.fold < N_FOLDS:
            raise ValueError(f"CTData.fold must lie in 0..{N_FOLDS - 1}, got {self.fold}")
        if self.max_seq_len < 16:
            raise ValueError(f"CTData.max_seq_len must be >= 16, got {self.max_seq_len}")
        if self.formulas_cap < 0:
            raise ValueError(f"CTData.formulas_cap must be >= 0, got {self.formulas_cap}")

    def serialize(self) -> SerializeConfig:
        """How a window becomes a sequence (saved beside the model as its inputs)."""
        return SerializeConfig(max_seq_len=self.max_seq_len)


@dataclass(frozen=True)
class CTTraining(Training):
    class_power: float = 0.5  # class weights (N / (K n_c)) ** power (`model.class_weights`)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.class_power < 0:
            raise ValueError(f"CTTraining.class_power must be >= 0, got {self.class_power}")
        if self.dev_checks:
            raise ValueError(
                "training.dev_checks: cell types has no dev split (its folds are "
                "scored after training); give 0"
            )


@dataclass(frozen=True)
class CTEvaluation:
    batch_size: int = 16  # windows per evaluation batch
    rounds: int = 2000  # resamplings of files for the intervals
    model: str = ""  # `evaluate`: the fine-tuned model folder (a finetune run's OUT/model)
    formulas_test: bool = False  # also score the formula-labelled set's test split (once, for
    # the model shipped)

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.rounds < 1:
            raise ValueError("CTEvaluation.batch_size and rounds must be >= 1")


@dataclass(frozen=True)
class CellTypesRunConfig:
    """One cell-type run (fine-tuning and evaluation on one fold); see the module doc."""

    model: CTModel = field(default_factory=CTModel)
    data: CTData = field(default_factory=CTData)
    encoder: EncoderStart = field(default_factory=EncoderStart)  # random
    optim: Optim = field(default_factory=Optim)  # head 1e-3, encoder 1e-4, warm-up 0.1
    training: CTTraining = field(default_factory=lambda: CTTraining(save_every=25))
    evaluation: CTEvaluation = field(default_factory=CTEvaluation)

    def __post_init__(self) -> None:
        if self.data.all_folds and self.model.kind == ENCODER:
            raise ValueError(
                "data.all_folds: only model.kind=boosted trains on every fold (and hybrid); "
                "an encoder run holds out data.fold"
            )
        if self.model.kind == HYBRID and self.encoder.name in ("tuta", "fortap"):
            raise ValueError("encoder.name: a hybrid folder names its frozen encoder, so it must "
                             "be minilm, random or a shipped encoder (models/encoders), got "
                             f"{self.encoder.name!r}")  # fmt: skip
        if self.data.formulas and self.model.kind != BOOSTED:
            raise ValueError(f"data.formulas: only model.kind=boosted trains on the "
                             f"formula-labelled set, got {self.model.kind!r}")  # fmt: skip
        if self.evaluation.formulas_test and not self.data.formulas:
            raise ValueError("evaluation.formulas_test: give the set in data.formulas")
        if self.model.kind == BOOSTED and self.encoder != EncoderStart():
            raise ValueError(f"encoder.name: model.kind=boosted reads no encoder, got "
                             f"{self.encoder.name!r}")  # fmt: skip


SHORTHANDS = dict(FINETUNE_SHORTHANDS)  # CLI flag -> config key
