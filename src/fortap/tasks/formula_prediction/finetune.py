"""Fine-tuning formula prediction through the shared loop (`finetune_formula_prediction`).

The task hands `fortap.training.loop.train` three things and gets accumulation, the bf16
policy, checkpoints a killed run resumes from bit for bit, `metrics.jsonl`, the progress bar
and torchrun DDP:

- the model, `FormulaPredictionModel` (`forward(batch) -> (loss, logs)`);
- the batches, `ShuffledBatches` over the training examples (kept in memory; each epoch in an
  order drawn from the run's rng, which first seeds the decoder's initialisation); with
  `data.augment` each drawn example is augmented anew (`augmented.Augmenter`, which needs the
  run's tables, parsed formulas and tokenizer; `augment_counts.json` in the run folder says
  how often each kind changed a draw of the last process);
- a step hook, the paper's two phases: `sketch_warmup` sketch-only updates (range loss weight
  0), then sketch + `range_weight` * ranges.

With dev examples and dev checks the loop keeps the state with the lowest dev loss
(`eval/loss/formula`, sketch + range at full weight; `TrainConfig.keep_best`), or with
`training.keep_best` "formula_top1" the highest dev formula top-1. With
`evaluation.dev_decode` each check also decodes the dev examples, and the run folder gets the
dev baselines once (`fortap.tasks.formula_prediction.dev_checks`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch
from torch import nn

from fortap.encoding.example import Example
from fortap.table.model import Table
from fortap.tasks.formula_prediction.augmented import Augmenter
from fortap.tasks.formula_prediction.config import FormulaRunConfig
from fortap.tasks.formula_prediction.dev_checks import (
    dev_baselines,
    dev_decoding,
    dev_subset,
    write_dev_baselines,
)
from fortap.tasks.formula_prediction.examples import (
    fp_batch,
)
from fortap.tasks.formula_prediction.model import FormulaPredictionModel
from fortap.text.tokenizer import Tokenizer
from fortap.training.distributed import Dist
from fortap.training.loop import TrainResult, train
from fortap.training.shuffled import ShuffledBatches

AUGMENT_COUNTS = "augment_counts.json"  # per kind: draws changed, drawn but not applicable


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
    """Fine-tune `encoder` with a new formula decoder on `train_examples` in `out_dir`
    (resuming from its checkpoints); the model is returned in eval mode. `tables` (and their
    parsed `formulas`) let the dev baselines include the rules; without them only the sketch
    prior is written. `data.augment` needs `tables`, `formulas` and `tokenizer`."""
    if not train_examples:
        raise ValueError("finetune_formula_prediction: no training examples")
    augmenter = None
    if cfg.data.augment.active:
        if tables is None or formulas is None or tokenizer is None:
            raise ValueError("finetune_formula_prediction: data.augment needs the run's tables, "
                             "parsed formulas and tokenizer")  # fmt: skip
        augmenter = Augmenter(train_examples, tables, formulas, tokenizer, cfg.examples(),
                              cfg.data.augment, cfg.training.seed)  # fmt: skip
    dist = dist or Dist()
    rng = random.Random(cfg.training.seed)
    torch.manual_seed(rng.randrange(2**31))
    model = FormulaPredictionModel(encoder, cfg.decoder)
    size = cfg.training.batch_size
    data = ShuffledBatches(
        train_examples, fp_batch, size, rng, dist.rank, dist.world, draw=augmenter
    )
    dev = dev_subset(dev_examples, cfg)
    step = cfg.evaluation.batch_size
    dev_batches = [fp_batch(dev[i : i + step]) for i in range(0, len(dev), step)]
    loop = cfg.training.loop()
    on_eval = None
    if loop.eval_every and dev and cfg.evaluation.dev_decode:
        on_eval = dev_decoding(dev, cfg)
        if dist.is_main:
            write_dev_baselines(out_dir, dev_baselines(train_examples, dev, cfg, tables, formulas))
    warm, weight = cfg.training.warmup_updates, cfg.training.range_weight

    def two_phases(update: int) -> None:
        model.range_weight = 0.0 if update < warm else weight

    result = train(
        model, data, loop, cfg.optim.optimizer(), out_dir, dev_batches if loop.eval_every else (),
        resume=resume, stop_at=stop_at, dist=dist, on_step=two_phases, on_eval=on_eval,
    )  # fmt: skip
    model.range_weight = weight
    if augmenter is not None and dist.is_main:  # what augmentation did in this process
        counts = json.dumps(dict(sorted(augmenter.counts.items())), indent=1)
        (Path(out_dir) / AUGMENT_COUNTS).write_text(counts + "\n")
    return model.eval(), result
