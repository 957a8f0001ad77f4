"""Masked language modelling with whole-cell masking (`mlm`; TUTA, reference note §5.2).

Targets: a share of the table cells that hold words is chosen; in each, with probability
`whole_cell_rate` every word piece is masked and the cell's [SEP] learns to predict the cell's
first word piece, otherwise one word piece is masked. Each masked piece becomes [MASK] (80 %),
a random word (10 %) or stays (10 %), and loses its number features so an in-vocabulary integer
cannot leak through them. Numbers (tokens with number features), [VAL], [EMP], [FORMULA] and
the formula tokens are never targets, as in the reference; neither are the cells a formula
sample's ForTaP objectives read (`draft.formula_related`: formula cell, its headers, NRP
candidates, referenced cells, NCP operands), which the reference also leaves unmasked.
The first context segment (after [CLS]) can be chosen too, single-piece only.

Departures from the reference: the [SEP] predicts the cell's first piece rather than a random
one (a learnable target), and the "punctuation" list bug is gone (every `no_target` id is
excluded, nothing else).

Head: Linear(D, D) → GELU → LayerNorm → decoder tied to the encoder's word embeddings + bias.
Only labelled positions are decoded. Letters: B batch, T tokens, N labelled tokens, D, V vocab.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from fortap.encoding.arrays import CELL, NUMBERS, TOKEN, ExampleArrays
from fortap.encoding.example import Batch
from fortap.model.output import EncoderOutput
from fortap.objectives.base import Objective, TargetContext, hidden_size, word_embeddings
from fortap.objectives.draft import Draft, formula_related, in_table, on_example, word_tokens
from fortap.objectives.vocab import Vocab
from fortap.text.numbers import NOT_A_NUMBER

NAME = "mlm"


@dataclass(frozen=True)
class MlmConfig:
    cell_rate: float = (
        0.15  # share of word-holding cells (word = not special, not a number) chosen for masking
    )
    max_cells: int = 20  # at most this many cells per example
    whole_cell_rate: float = 0.3  # chance that a chosen cell is masked whole
    mask_rate: float = 0.8  # chance a masked piece becomes [MASK]
    random_rate: float = 0.1  # chance it becomes a random word (the rest stay unchanged)
    context: bool = True  # may the context after [CLS] be chosen (single piece)

    def __post_init__(self) -> None:
        for name in ("cell_rate", "whole_cell_rate", "mask_rate", "random_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"MlmConfig.{name} must be in [0, 1], got {getattr(self, name)}")
        if self.mask_rate + self.random_rate > 1.0:
            raise ValueError("MlmConfig.mask_rate + random_rate must not exceed 1")
        if self.max_cells < 1:
            raise ValueError(f"MlmConfig.max_cells must be >= 1, got {self.max_cells}")


def build(draft: Draft, cfg: MlmConfig, ctx: TargetContext) -> None:
    """Mask word pieces of some cells; targets: `positions` and `labels` (original ids)."""
    rng = ctx.rng
    words, shifts = candidates(draft, cfg, ctx.vocab)
    labels: dict[int, int] = {}
    noised: dict[int, int] = {}
    if shifts:
        ints = draft.ints
        n = min(cfg.max_cells, max(1, round(cfg.cell_rate * len(shifts))))
        for cell in sorted(rng.sample(list(shifts), n)):
            positions = [p + shifts[cell] for p in words[cell]]
            if cell != 0 and rng.random() < cfg.whole_cell_rate:
                chosen = positions
                labels[draft.starts[cell]] = int(ints[positions[0], TOKEN])  # [SEP] -> 1st piece
            else:
                chosen = [rng.choice(positions)]
            for pos in chosen:
                labels[pos] = token = int(ints[pos, TOKEN])
                noised[pos] = _noise(token, cfg, ctx)
    if noised:
        ints, _ = draft.writable(shifts)
        ints[list(noised), TOKEN] = list(noised.values())
        ints[list(noised), NUMBERS] = NOT_A_NUMBER
    positions = sorted(labels)
    draft.targets[NAME] = {"positions": positions, "labels": [labels[p] for p in positions]}


targets = on_example(build)  # the same on an `Example`, returning a new one


def candidates(
    draft: Draft, cfg: MlmConfig, vocab: Vocab
) -> tuple[dict[int, list[int]], dict[int, int]]:
    """({cell: positions of its word pieces}, {cell: how far they moved}) of the maskable cells
    of the draft as it stands, ascending in the second. The sample's are found once
    (`sample_words`) and moved to where the draft's edits put them: blanked cells have none
    left, the context gains the words inserted at its end, later cells shift. When a builder
    rewrote a maskable cell in place, the draft itself is read."""
    eligible, words = draft.remember(NAME, lambda sample: sample_words(sample, cfg, vocab))
    touched = draft.rewritten | (draft.blanked & {0})  # what the sample's words do not tell
    if any(eligible[cell] for cell in touched if cell < len(eligible)):
        found = _words(draft.ints, eligible, vocab)
        return found, dict.fromkeys(found, 0)
    sample, shifts = draft.sample, {}
    if cfg.context and draft.inserted:
        end = sample.starts[1] if len(sample.starts) > 1 else len(sample.ints)
        added = np.concatenate(draft.inserted)  # (k, 5)
        context = words.get(0, []) + (end + np.flatnonzero(word_tokens(added, vocab))).tolist()
        words = {**words, 0: context}
    if words.get(0):
        shifts[0] = 0
    starts, before = draft.starts, sample.starts
    shifts.update((c, starts[c] - before[c]) for c in words if c and c not in draft.blanked)
    return words, shifts


def sample_words(sample: ExampleArrays, cfg: MlmConfig, vocab: Vocab) -> tuple[np.ndarray, dict]:
    """(`maskable_cells`, {cell: positions} of their word pieces) of a sample, ascending."""
    eligible = maskable_cells(sample, cfg)
    return eligible, _words(sample.ints, eligible, vocab)


def _words(ints: np.ndarray, eligible: np.ndarray, vocab: Vocab) -> dict[int, list[int]]:
    """{cell: positions} of the word pieces of the `eligible` cells among `ints`' tokens."""
    at = np.flatnonzero(word_tokens(ints, vocab) & eligible[ints[:, CELL]])  # (N,)
    out: dict[int, list[int]] = {}
    for cell, pos in zip(ints[at, CELL].tolist(), at.tolist(), strict=True):
        out.setdefault(cell, []).append(pos)
    return out


def maskable_cells(sample: ExampleArrays, cfg: MlmConfig) -> np.ndarray:
    """(C + 1,) bool per cell id: may MLM mask it? Table cells that no ForTaP objective reads
    (`formula_related`), and the context (cell 0) when `cfg.context`; never appended items."""
    eligible = in_table(sample)  # (C + 1,)
    eligible[list(formula_related(sample))] = False
    eligible[0] = cfg.context
    return eligible


def _noise(token: int, cfg: MlmConfig, ctx: TargetContext) -> int:
    draw = ctx.rng.random()
    if draw < cfg.mask_rate:
        return ctx.vocab.mask
    if draw < cfg.mask_rate + cfg.random_rate:
        return ctx.vocab.random_id(ctx.rng)
    return token


def collate(values: list[dict | None], batch: Batch | None = None) -> dict[str, torch.Tensor]:
    """`batch_index`, `token_index`, `labels`: (N,) long each, over all labelled tokens."""
    rows, cols, labels = [], [], []
    for b, target in enumerate(values):
        target = target or {"positions": [], "labels": []}
        rows += [b] * len(target["positions"])
        cols += target["positions"]
        labels += target["labels"]
    as_long = lambda xs: torch.tensor(xs, dtype=torch.long)  # noqa: E731
    return {"batch_index": as_long(rows), "token_index": as_long(cols), "labels": as_long(labels)}


class MlmHead(nn.Module):
    """Transform + LayerNorm, then a decoder tied to the word embeddings plus a new bias."""

    def __init__(self, encoder: nn.Module, cfg: MlmConfig | None = None) -> None:
        super().__init__()
        D = hidden_size(encoder)
        embeddings = word_embeddings(encoder)
        self.transform = nn.Linear(D, D)
        self.norm = nn.LayerNorm(D, eps=1e-12)
        self.bias = nn.Parameter(torch.zeros(embeddings.weight.shape[0]))
        # Held in a tuple so the tied table is not registered twice: the encoder owns and
        # saves it, and checkpoints stay free of shared tensors.
        self._tied = (embeddings,)
        nn.init.normal_(self.transform.weight, std=0.02)
        nn.init.zeros_(self.transform.bias)

    def forward(self, output: EncoderOutput, batch: Batch) -> torch.Tensor:
        target = batch.targets[NAME]
        states = output.token_states[target["batch_index"], target["token_index"]]  # (N, D)
        hidden = self.norm(F.gelu(self.transform(states)))  # (N, D)
        return hidden @ self._tied[0].weight.t() + self.bias  # (N, V)


def loss(scores: torch.Tensor, target: dict[str, torch.Tensor]) -> torch.Tensor:
    if scores.shape[0] == 0:
        return scores.sum() * 0.0  # keeps the graph when a batch has nothing masked
    return F.cross_entropy(scores.float(), target["labels"])


def metric(scores: torch.Tensor, target: dict[str, torch.Tensor]) -> dict[str, float]:
    n = scores.shape[0]
    hits = (scores.argmax(-1) == target["labels"]).sum().item() if n else 0
    return {"acc": hits / n if n else 0.0, "n": float(n)}


OBJECTIVE = Objective(
    name=NAME,
    config=MlmConfig,
    build=build,
    collate=collate,
    head=MlmHead,
    loss=loss,
    metric=metric,
    order=30,
)
