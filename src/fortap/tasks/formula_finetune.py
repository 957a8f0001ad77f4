"""Fine-tuning and evaluating formula prediction: `train_formula_prediction`, `evaluate_formula_prediction`.

Training is two-phase, as the paper: `sketch_warmup` sketch-only updates (range loss weight 0),
then sketch + `range_weight` * ranges. Examples stay in memory (the FP sets are small); each
epoch visits them in an order drawn from the caller's `rng`, which also seeds the decoder's
initialisation and dropout. With `dev_examples` and `eval_every`, the state with the lowest dev
loss is the one returned. AdamW and the warm-up + linear-decay schedule are `fortap.training.optim`'s.

Evaluation decodes every example (beam search, `fortap.evaluation.decoding`), maps each pointer
back to its sheet cell, and scores the ranked candidates with `fortap.evaluation.metrics`.
`evaluate_sketch_prior` scores the input-blind reference: the most frequent training sketches.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from fortap.encoding.example import Example
from fortap.evaluation.decoding import Candidate, DecodeConfig, decode
from fortap.evaluation.metrics import Gold, Guess, error_class, formula_key, formula_metrics
from fortap.evaluation.render import render_formula
from fortap.formula.tokens import FORMULA_VOCAB, RANGE
from fortap.model.formula_decoder import DecoderConfig
from fortap.sheet.model import a1
from fortap.tasks.formula_prediction import FP_KEY, FormulaPredictionModel, fp_batch
from fortap.training.optim import OptimConfig, build_optimizer, lr_at, set_lr


@dataclass(frozen=True)
class FinetuneConfig:
    """Formula-prediction fine-tuning."""

    steps: int = 2000  # optimizer updates
    sketch_warmup: int = 500  # first updates with the range loss switched off
    range_weight: float = 1.0  # weight of the range loss after the warm phase
    batch_size: int = 8  # examples per update
    eval_every: int = 0  # updates between dev-loss checks (best state kept); 0 = never
    max_dev: int = 256  # dev examples used for those checks (the first ones)
    optim: OptimConfig = field(default_factory=lambda: OptimConfig(lr=1e-4))
    decoder: DecoderConfig = field(default_factory=DecoderConfig)

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size", "max_dev"):
            if getattr(self, name) < 1:
                raise ValueError(f"FinetuneConfig.{name} must be >= 1, got {getattr(self, name)}")
        for name in ("sketch_warmup", "eval_every"):
            if getattr(self, name) < 0:
                raise ValueError(f"FinetuneConfig.{name} must be >= 0, got {getattr(self, name)}")
        if self.range_weight < 0:
            raise ValueError(f"FinetuneConfig.range_weight must be >= 0, got {self.range_weight}")


def train_formula_prediction(
    train_examples: Sequence[Example],
    dev_examples: Sequence[Example],
    encoder: nn.Module,
    cfg: FinetuneConfig,
    rng: random.Random,
) -> FormulaPredictionModel:
    """Fine-tune `encoder` with a new formula decoder on `train_examples` (see module doc)."""
    if not train_examples:
        raise ValueError("train_formula_prediction: no training examples")
    torch.set_flush_denormal(True)
    torch.manual_seed(rng.randrange(2**31))
    model = FormulaPredictionModel(encoder, cfg.decoder)
    optimizer = build_optimizer(model, cfg.optim)
    dev_examples = dev_examples[: cfg.max_dev]
    dev = [fp_batch(dev_examples[i : i + 16]) for i in range(0, len(dev_examples), 16)]
    best: tuple[float, dict] | None = None
    order: list[int] = []
    for step in range(cfg.steps):
        model.train()
        if len(order) < cfg.batch_size:
            order += rng.sample(range(len(train_examples)), len(train_examples))
        take, order = order[: cfg.batch_size], order[cfg.batch_size :]
        model.range_weight = 0.0 if step < cfg.sketch_warmup else cfg.range_weight
        loss, _ = model(fp_batch([train_examples[i] for i in take]))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if cfg.optim.clip_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.clip_norm)
        set_lr(optimizer, lr_at(step, cfg.steps, cfg.optim))
        optimizer.step()
        last = step + 1 == cfg.steps
        if dev and cfg.eval_every and ((step + 1) % cfg.eval_every == 0 or last):
            score = dev_loss(model, dev)
            if best is None or score < best[0]:
                best = (score, copy.deepcopy(model.state_dict()))
    if best is not None:
        model.load_state_dict(best[1])
    model.range_weight = cfg.range_weight
    return model.eval()


@torch.no_grad()
def dev_loss(model: FormulaPredictionModel, batches) -> float:
    """Mean sketch + range loss (weight 1) over `batches`."""
    model.eval()
    weight, model.range_weight = model.range_weight, 1.0
    total = sum(float(model(b)[0]) for b in batches) / max(1, len(batches))
    model.range_weight = weight
    return total


def gold_of(example: Example) -> Gold:
    """The true formula of a formula-prediction example, in the metrics' terms."""
    t = example.targets[FP_KEY]
    ranges = tuple(tuple(c) if c is not None else None for c in t["gold_ranges"])
    return Gold(tuple(FORMULA_VOCAB[i] for i in t["sketch"]), ranges, bool(t["reachable"]))  # type: ignore[arg-type]


def guess_of(example: Example, candidate: Candidate) -> Guess:
    """A decoded candidate with its pointers mapped to sheet cells."""
    top, left = example.targets[FP_KEY]["origin"]
    cells = []
    for p in candidate.pointers:
        r, c = example.cell_coords[p] if 0 <= p < len(example.cell_coords) else (None, None)
        cells.append(None if r is None else (top + r, left + c))
    return Guess(candidate.sketch, tuple(cells))


def guess_text(guess: Guess) -> str:
    """Excel text of a guess (constants as placeholders, see `fortap.evaluation.render`)."""
    return render_formula(guess.sketch, [a1(*c) if c else "<WR>" for c in guess.ranges])


def evaluate_formula_prediction(
    model: FormulaPredictionModel,
    examples: Sequence[Example],
    beam: int = 5,
    top_k: int = 5,
    batch_size: int = 16,
    decode_cfg: DecodeConfig | None = None,
) -> tuple[dict, list[dict]]:
    """Metrics over `examples` and one prediction record per example (gold, ranked candidates).

    `decode_cfg`, when given, replaces `beam` and `top_k`."""
    cfg = decode_cfg or DecodeConfig(beam=beam, top_k=top_k)
    top_k = cfg.top_k
    golds, guesses, records = [], [], []
    for i in range(0, len(examples), batch_size):
        chunk = examples[i : i + batch_size]
        for example, candidates in zip(chunk, decode(model, fp_batch(chunk), cfg), strict=True):
            gold = gold_of(example)
            ranked = [guess_of(example, c) for c in candidates]
            golds.append(gold)
            guesses.append(ranked)
            records.append(prediction_record(example, gold, ranked, candidates))
    metrics = formula_metrics(golds, guesses, k=top_k)
    return metrics, records


def evaluate_sketch_prior(
    train_examples: Sequence[Example], examples: Sequence[Example], top_k: int = 5
) -> dict:
    """Metrics of the input-blind guess: the `top_k` most frequent training sketches, in that
    order, for every example, pointing nowhere. A decoder whose sketch accuracy does not beat
    it has learned the sketch distribution but not to read the table."""
    counts = Counter(tuple(ex.targets[FP_KEY]["sketch"]) for ex in train_examples)
    ranked = []
    for ids, _ in counts.most_common(top_k):
        sketch = tuple(FORMULA_VOCAB[i] for i in ids)
        ranked.append(Guess(sketch, (None,) * sketch.count(RANGE)))
    return formula_metrics([gold_of(ex) for ex in examples], [ranked] * len(examples), k=top_k)


def prediction_record(
    example: Example, gold: Gold, ranked: list[Guess], candidates: list[Candidate]
) -> dict:
    target = example.meta.get("target", [0, 0])
    return {
        "book": example.meta.get("book"),
        "sheet": example.meta.get("sheet"),
        "cell": a1(*target),
        "formula": example.meta.get("formula"),
        "gold": " ".join(formula_key(gold)),
        "reachable": gold.reachable,
        "error": error_class(gold, ranked[0] if ranked else None),
        "candidates": [
            {
                "formula": guess_text(g),
                "prefix": " ".join(formula_key(g)),
                "score": c.score,
                "range_score": c.range_score,
            }
            for g, c in zip(ranked, candidates, strict=True)
        ],
    }
