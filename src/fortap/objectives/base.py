"""What every pretraining objective provides, and the context its target builder receives.

An objective is one module exposing an `Objective` record:

- `build(draft, cfg, ctx) -> None`: edits a `fortap.objectives.draft.Draft` (the example as
  arrays) as a function of its sample, the objective's config and `ctx` (vocabulary, explicit
  `rng`, token budget, negatives): it disturbs the inputs and puts its targets under
  `draft.targets[name]`. Each module also exposes the same rule on an `Example` as
  `targets(example, cfg, ctx) -> Example` (a new Example; `draft.on_example`);
- `collate(values, batch) -> dict[str, Tensor]`: pads the examples' `targets[name]` (None
  where an example has none) into `Batch.targets[name]` (the hook of `encoding.collate`);
- `head(encoder, cfg) -> nn.Module`: a thin head over `EncoderOutput` whose
  `forward(output, batch)` returns the objective's scores;
- `loss(scores, targets) -> Tensor` and `metric(scores, targets) -> dict[str, float]`; a
  metric that reports an F1 also reports its `tp`, `fp` and `fn` counts, so log means can
  recompute it (`fortap.metrics.f1`).

`order` fixes when targets are built: objectives that restructure the sequence (blank cells,
append items) run before those that only relabel tokens (MLM), so nobody's positions move
after they are recorded.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fortap.objectives.vocab import Vocab


@dataclass(frozen=True)
class TargetContext:
    """Everything a target builder may read besides the example and its config."""

    vocab: Vocab
    rng: random.Random  # the only source of randomness
    max_tokens: int = 256  # appended items must keep the example within this many tokens
    negatives: Sequence[str] = ()  # context snippets of other tables (table-context distractors)
    memo: dict[str, Any] = field(default_factory=dict)  # what builders derive from the above
    # alone (encoded snippets, an index of the negatives), kept for a run


@dataclass(frozen=True)
class Objective:
    """One pretraining objective: target builder, collate hook, head, loss and metric."""

    name: str
    config: type  # config dataclass with defaults
    build: Callable[..., None]  # (draft, cfg, ctx): the example's edits and targets
    collate: Callable[..., dict[str, Any]]
    head: Callable[..., Any]
    loss: Callable[..., Any]
    metric: Callable[..., dict[str, float]]
    order: int  # target builders run in increasing order


def padded(rows: Sequence[Sequence], dtype) -> tuple[np.ndarray, np.ndarray]:
    """(B, K) array of the ragged `rows`, zero past each row's end, and its (B, K) bool mask of
    the filled slots; K is the longest row (0 when all are empty)."""
    K = max((len(r) for r in rows), default=0)
    out = np.zeros((len(rows), K), dtype=dtype)  # (B, K)
    mask = np.zeros((len(rows), K), dtype=bool)  # (B, K)
    b = [i for i, r in enumerate(rows) for _ in r]
    k = [j for r in rows for j in range(len(r))]
    out[b, k] = [x for r in rows for x in r]
    mask[b, k] = True
    return out, mask


def hidden_size(encoder) -> int:
    """Width D of the encoder's states, read from its word embeddings."""
    return word_embeddings(encoder).weight.shape[1]


def word_embeddings(encoder):
    """The encoder's token embedding table (`nn.Embedding`), which the MLM decoder is tied to."""
    return encoder.embeddings.word_embeddings
