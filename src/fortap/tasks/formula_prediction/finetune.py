"""Formula prediction's part of the one fine-tuning run (`FormulaFinetune`, a `TaskRun`).

What it hands `fortap.tasks.run.run`:

- examples: the run's split (`run_data.load_split`); the dev examples of the dev checks are
  `evaluation.max_dev` of the dev split spread over it (`dev_checks.dev_subset`);
- the model: `FormulaPredictionModel`, a new formula decoder over the started encoder whose
  bottom `encoder.freeze` layers get no gradient; batches: `fp_batch`;
- hooks: with `data.augment` each drawn example is augmented anew (`augmented.Augmenter`;
  `augment_counts.json` in the run folder says how often each kind changed a draw of the last
  process); the paper's two phases, `sketch_warmup` sketch-only updates (range loss weight 0)
  then sketch + `range_weight` * ranges; with `evaluation.dev_decode` each dev check also
  decodes the dev examples, and the run folder gets the dev baselines once (`dev_checks`);
- variants: the learning curve, one training on each share of `evaluation.curve`;
- predict: beam search over the test examples; score: the model beside the rules and the
  sketch prior (`compare`), the curve, `metrics.json`'s record (`outputs.run_metrics`).

With dev examples and dev checks the loop keeps the state with the lowest dev loss
(`eval/loss/formula`, sketch + range at full weight), or with `training.keep_best`
"formula_top1" the highest dev formula top-1. `finetune_formula_prediction` trains on given
examples alone (tests, benches, the demo's model source).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Console
from torch import nn

from fortap.encoding.example import Batch, Example
from fortap.table.model import Table
from fortap.tasks.formula_prediction.augmented import Augmenter
from fortap.tasks.formula_prediction.checkpoint import save_formula_model
from fortap.tasks.formula_prediction.compare import compare_predicted
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.dev_checks import (
    dev_baselines,
    dev_decoding,
    dev_subset,
    write_dev_baselines,
)
from fortap.tasks.formula_prediction.evaluate import Predicted, predict
from fortap.tasks.formula_prediction.examples import fp_batch, low_resource
from fortap.tasks.formula_prediction.metrics import formula_metrics
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.tasks.formula_prediction.outputs import run_metrics, show_run
from fortap.tasks.formula_prediction.report import CurvePoint
from fortap.tasks.formula_prediction.run_data import (
    FormulaRun,
    Loaded,
    freeze_layers,
    load_split,
)
from fortap.tasks.run import train_model
from fortap.tasks.task_run import Hooks, RunData, Scored, TaskRun, Trained
from fortap.text.tokenizer import Tokenizer
from fortap.training.distributed import Dist
from fortap.training.loop import TrainResult

AUGMENT_COUNTS = "augment_counts.json"  # per kind: draws changed, drawn but not applicable


class FormulaFinetune(TaskRun):
    """Formula prediction's `TaskRun` (module doc)."""

    name, kind = "formula-prediction", "encoder"

    def __init__(self, cfg: FormulaRunConfig) -> None:
        self.cfg = cfg

    def examples(self, paths: Sequence[str | Path], console: Console) -> RunData:
        loaded = load_split(paths, self.cfg)
        sizes = {k: len(v) for k, v in loaded.split.items()}
        return self.data(loaded, loaded.split["train"], f"formula examples {sizes}; {loaded.note}")

    def data(self, loaded: Loaded, train: Sequence[Example], note: str = "") -> RunData:
        """The run's data training on `train` (the whole training side, or a share of it)."""
        dev = dev_subset(loaded.split["dev"], self.cfg)
        vocab = loaded.tokenizer.vocab_size if loaded.tokenizer is not None else 0
        return RunData(train, dev, self.cfg.evaluation.batch_size, vocab, loaded, note)

    def model(self, encoder: nn.Module, data: RunData) -> FormulaPredictionModel:
        return FormulaPredictionModel(freeze_layers(encoder, self.cfg), self.cfg.decoder)

    def collate(self, examples: list[Example]) -> Batch:
        return fp_batch(examples)

    def hooks(self, model, data: RunData, run_dir: Path, is_main: bool) -> Hooks:
        cfg, loaded = self.cfg, data.held
        augmenter = augmenter_of(data.train, loaded, cfg)
        on_eval = None
        if cfg.training.loop().eval_every and data.dev and cfg.evaluation.dev_decode:
            on_eval = dev_decoding(data.dev, cfg)
            if is_main:
                baselines = dev_baselines(data.train, data.dev, cfg, loaded.tables,
                                          loaded.formulas)  # fmt: skip
                write_dev_baselines(run_dir, baselines)
        warm, weight = cfg.training.warmup_updates, cfg.training.range_weight

        def two_phases(update: int) -> None:
            model.range_weight = 0.0 if update < warm else weight

        def done(trained: nn.Module) -> None:
            trained.range_weight = weight
            if augmenter is not None and is_main:  # what augmentation did in this process
                counts = json.dumps(dict(sorted(augmenter.counts.items())), indent=1)
                (run_dir / AUGMENT_COUNTS).write_text(counts + "\n")

        return Hooks(draw=augmenter, on_step=two_phases, on_eval=on_eval, done=done)

    def variants(self, data: RunData) -> dict[str, RunData]:
        seed, loaded = self.cfg.training.seed, data.held
        return {f"{share:g}": self.data(loaded, low_resource(data.train, random.Random(seed), share))
                for share in sorted(self.cfg.evaluation.curve)}  # fmt: skip

    def save(self, model: FormulaPredictionModel, folder: Path) -> FormulaPredictionModel:
        save_formula_model(model, folder, self.cfg.examples().serialize)
        return model

    def predict(self, model: FormulaPredictionModel, data: RunData) -> Predicted:
        ev = self.cfg.evaluation
        return predict(model, data.held.split["test"], ev.batch_size, self.cfg.decoding)

    def score(self, predicted: Predicted, trained: Trained, data: RunData) -> Scored:
        loaded, cfg = data.held, self.cfg
        test, k = loaded.split["test"], cfg.decoding.top_k
        systems, records = compare_predicted(predicted, test, cfg, loaded.tables,
                                             loaded.formulas, data.train)  # fmt: skip
        curve = [CurvePoint(1.0, len(data.train), systems["model"]["formula_top1"])]
        shares = {f"{share:g}": share for share in cfg.evaluation.curve}
        for name, (part, (golds, guesses, _)) in trained.variants.items():
            top1 = formula_metrics(golds, guesses, k=k)["formula_top1"]
            curve.append(CurvePoint(shares[name], len(part.train), top1))
        curve.sort(key=lambda p: p.share)
        run = FormulaRun(trained.model, loaded.tables, loaded.split, systems, records,
                         [loaded.note], loaded.formulas)  # fmt: skip
        return Scored(run, run_metrics(run, cfg, curve), records)

    def report(self, out: Path, scored: Scored, console: Console) -> None:
        show_run(out, scored.metrics, console)


def augmenter_of(train: Sequence[Example], loaded: Loaded | None, cfg: FormulaRunConfig):
    """The `Augmenter` of `data.augment` over `train` (None when it is off); it needs the
    run's tables, parsed formulas and tokenizer."""
    if not cfg.data.augment.active:
        return None
    if loaded is None or loaded.tables is None or loaded.formulas is None:
        raise ValueError("finetune_formula_prediction: data.augment needs the run's tables, "
                         "parsed formulas and tokenizer")  # fmt: skip
    return Augmenter(train, loaded.tables, loaded.formulas, loaded.tokenizer, cfg.examples(),
                     cfg.data.augment, cfg.training.seed)  # fmt: skip


def finetune_formula_prediction(
    train_examples: Sequence[Example],
    dev_examples: Sequence[Example],
    encoder: nn.Module,
    cfg: FormulaRunConfig,
    out_dir: str | Path,
    dist: Dist | None = None,
    stop_at: int | None = None,
    resume: bool = True,
    tables: Sequence[Table] | None = None,
    formulas: Mapping | None = None,
    tokenizer: Tokenizer | None = None,
) -> tuple[FormulaPredictionModel, TrainResult]:
    """The run's training stage (`tasks.run.train_model`) on given examples: `encoder` with a
    new formula decoder fine-tuned on `train_examples` in `out_dir` (resuming from its
    checkpoints); the model is returned in eval mode. `tables` (and their parsed `formulas`)
    let the dev baselines include the rules; `data.augment` needs them and `tokenizer`."""
    if not train_examples:
        raise ValueError("finetune_formula_prediction: no training examples")
    split = {"train": list(train_examples), "dev": list(dev_examples), "test": []}
    loaded = Loaded(tables, tokenizer, split, "", formulas)  # type: ignore[arg-type]
    task = FormulaFinetune(cfg)
    data = task.data(loaded, train_examples)
    return train_model(task, data, out_dir, dist, stop_at, encoder, resume)
