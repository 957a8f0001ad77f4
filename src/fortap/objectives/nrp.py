"""Numerical reference prediction (`nrp`; ForTaP's NRP, reference note §6.4–6.5).

Built from a corpus sample's formula facts (`example.targets[FORMULA_KEY]`, a `FormulaTargets`, see
`fortap.corpus.samples`), in two parts:

- **table-only**: pairs (formula cell's non-shared header, candidate header). Candidates are
  the referenced cells' non-shared headers (positive) and the other headers on the same side
  (negative), at most `negative_ratio` negatives per positive, drawn with `ctx.rng`. Head: a
  two-layer classifier over the two header cells' states,
  W2·GELU(W1·[h_c; h_f; h_c⊙h_f; h_c−h_f]) (c candidate, f formula header; the product and
  difference let one hidden layer compare the two). With `offsets` > 0 (our extension, off by
  default) the classifier also reads a learned embedding of the pair's offset (`pair_offset`,
  clipped to ±`offsets`): the paper's head must find where two headers sit relative to each
  other in their states, which a 30-minute CPU run does not teach it (`bench/pretrain.py`).
- **table-text**: with chance `text_rate`, a noisy prompt goes after [CLS]: 1–10 random
  vocabulary tokens with the formula cell's row and column headers (their pieces, as shown in
  the table) inserted at random places. Every table cell is then tagged: formula header (1, the
  row and column headers), formula cell (2), reference header (3, the positives), other (0).
  Head: Linear → tanh → Linear(4) over cell states; cross-entropy with class weights
  (`other_weight` for class 0, 1 for the rest), as the reference weights its ordinary class.

The prompt is inserted into cell 0 ([CLS] + context), so no cell is renumbered; this objective
runs first (`order` 5) so that positions recorded by later objectives are already final.
Letters: B batch, C cells, N candidate pairs, D hidden.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from fortap.encoding.arrays import ExampleArrays
from fortap.encoding.example import Batch, Example
from fortap.encoding.formula_targets import FORMULA_KEY, FormulaTargets
from fortap.metrics.f1 import f1
from fortap.model.output import EncoderOutput
from fortap.objectives.base import Objective, TargetContext, hidden_size
from fortap.objectives.draft import Draft, on_example, pieces

NAME = "nrp"
TAGS = ("other", "formula_header", "formula_cell", "reference_header")


@dataclass(frozen=True)
class NrpConfig:
    negative_ratio: int = 3  # at most this many negatives per positive header
    text_rate: float = 0.5  # chance of the table-text variant (noisy prompt + cell tagging)
    min_noise: int = 1  # random vocabulary tokens in a prompt, at least
    max_noise: int = 10  # ... and at most
    other_weight: float = 0.1  # loss weight of the "other" tag
    offsets: int = 0  # > 0: the pair head also embeds the pair's offset, clipped to ±offsets

    def __post_init__(self) -> None:
        if self.negative_ratio < 0:
            raise ValueError(f"NrpConfig.negative_ratio must be >= 0, got {self.negative_ratio}")
        if not 0.0 <= self.text_rate <= 1.0:
            raise ValueError(f"NrpConfig.text_rate must be in [0, 1], got {self.text_rate}")
        if not 0 <= self.min_noise <= self.max_noise:
            raise ValueError("NrpConfig needs 0 <= min_noise <= max_noise")
        if self.other_weight < 0:
            raise ValueError(f"NrpConfig.other_weight must be >= 0, got {self.other_weight}")
        if self.offsets < 0:
            raise ValueError(f"NrpConfig.offsets must be >= 0, got {self.offsets}")


def build(draft: Draft, cfg: NrpConfig, ctx: TargetContext) -> None:
    """Targets: `query`, `candidates`, `labels` (cell ids), their `offsets` (`pair_offset`)
    and `tags` (per cell, or None)."""
    facts = draft.facts
    target = {"query": 0, "candidates": [], "labels": [], "offsets": [], "tags": None}
    if facts and facts.formula_header and facts.positives:
        positives = list(facts.positives)
        negatives = ctx.rng.sample(
            facts.negatives, min(len(facts.negatives), cfg.negative_ratio * len(positives))
        )
        offsets = draft.remember(NAME, pair_offsets)
        candidates = positives + negatives
        target.update(query=facts.formula_header, candidates=candidates,
                      labels=[1] * len(positives) + [0] * len(negatives),
                      offsets=[offsets[c] for c in candidates])  # fmt: skip
    headers = [h for h in (facts.row_header, facts.col_header) if h] if facts else []
    if facts and headers and ctx.rng.random() < cfg.text_rate:
        prompt = noisy_prompt(draft, headers, cfg, ctx)
        if len(draft) + len(prompt) <= ctx.max_tokens:
            draft.insert_context(prompt)
            target["tags"] = cell_tags(len(draft.sample.cell_coords), facts, headers)
    draft.targets[NAME] = target


targets = on_example(build)  # the same on an `Example`, returning a new one


def noisy_prompt(
    draft: Draft, headers: list[int], cfg: NrpConfig, ctx: TargetContext
) -> np.ndarray:
    """(k, 5) pieces: random vocabulary tokens with each header's pieces inserted at a random
    place."""
    count = ctx.rng.randint(cfg.min_noise, cfg.max_noise)
    parts = list(pieces([ctx.vocab.random_id(ctx.rng) for _ in range(count)])[:, None])
    for header in headers:  # each part is (1, 5) noise or a header's (k, 5) pieces
        parts.insert(ctx.rng.randint(0, len(parts)), draft.content(header))
    return np.concatenate(parts) if parts else pieces([])


def cell_tags(cells: int, facts: FormulaTargets, headers: list[int]) -> list[int]:
    """One tag per serialised cell, `cells` of them (index k-1 for cell id k); see `TAGS`."""
    tags = [0] * cells
    for cell in facts.positives:
        tags[cell - 1] = 3
    for cell in headers:
        tags[cell - 1] = 1
    tags[facts.cell - 1] = 2
    return tags


def pair_offsets(sample: ExampleArrays) -> dict[int, int]:
    """`pair_offset` from the formula header to every NRP candidate of a sample."""
    facts = sample.targets[FORMULA_KEY]
    return {c: pair_offset(sample, facts.formula_header, c)
            for c in (*facts.positives, *facts.negatives)}  # fmt: skip


def collate(values: list[dict | None], batch: Batch) -> dict[str, torch.Tensor]:
    """Pairs as flat (N,) tensors (`batch_index`, `query`, `candidate` 0-based cells, `labels`,
    `offset`); `tags` (B, C) long, -100 where a cell has no tag."""
    rows, queries, cands, labels, offsets = [], [], [], [], []
    C = batch.sep_index.shape[1]
    tags = np.full((len(values), C), -100, dtype=np.int64)  # (B, C)
    tagged, tag_cells, tag_values = [], [], []
    for b, target in enumerate(values):
        if not target:
            continue
        n = len(target["candidates"])
        rows += [b] * n
        queries += [target["query"] - 1] * n
        cands += [c - 1 for c in target["candidates"]]
        labels += target["labels"]
        offsets += target["offsets"]
        if target["tags"] is not None:
            tagged += [b] * len(target["tags"])
            tag_cells += range(len(target["tags"]))
            tag_values += target["tags"]
    tags[tagged, tag_cells] = tag_values
    as_long = lambda xs: torch.tensor(xs, dtype=torch.long)  # noqa: E731
    return {"batch_index": as_long(rows), "query": as_long(queries), "candidate": as_long(cands),
            "labels": as_long(labels), "offset": as_long(offsets),
            "tags": torch.from_numpy(tags)}  # fmt: skip


class NumericalReferenceHead(nn.Module):
    """Pair classifier over (candidate header, formula header) and a 4-way cell tagger."""

    def __init__(self, encoder: nn.Module, cfg: NrpConfig | None = None) -> None:
        super().__init__()
        D = hidden_size(encoder)
        cfg = cfg or NrpConfig()
        self.offsets = cfg.offsets
        if self.offsets:
            self.offset = nn.Embedding(2 * self.offsets + 1, D)  # -offsets..offsets
        width = 5 * D if self.offsets else 4 * D
        self.pair = nn.Sequential(nn.Linear(width, D), nn.GELU(), nn.Linear(D, 2))
        self.tag = nn.Sequential(nn.Linear(D, D), nn.Tanh(), nn.Linear(D, len(TAGS)))
        for module in self.modules():
            if isinstance(module, nn.Linear | nn.Embedding):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear):
                nn.init.zeros_(module.bias)
        self.tag_weights = cfg.other_weight

    def forward(self, output: EncoderOutput, batch: Batch) -> dict[str, torch.Tensor]:
        target = batch.targets[NAME]
        cells = output.cell_states  # (B, C, D)
        b = target["batch_index"]
        query = cells[b, target["query"]]  # (N, D)
        cand = cells[b, target["candidate"]]  # (N, D)
        parts = [cand, query, cand * query, cand - query]
        if self.offsets:
            gap = target["offset"].clamp(-self.offsets, self.offsets) + self.offsets  # (N,)
            parts.append(self.offset(gap).to(cand.dtype))  # (N, D)
        pair = self.pair(torch.cat(parts, dim=-1))  # (N, 2)
        tag = self.tag(cells)  # (B, C, 4)
        weights = torch.ones(len(TAGS), dtype=tag.dtype, device=tag.device)
        weights[0] = self.tag_weights
        return {"pair": pair, "tag": tag, "tag_weights": weights}


def loss(scores: dict[str, torch.Tensor], target: dict[str, torch.Tensor]) -> torch.Tensor:
    total = scores["pair"].sum() * 0.0 + scores["tag"].sum() * 0.0  # keeps the graph when empty
    if target["labels"].numel():
        total = total + F.cross_entropy(scores["pair"].float(), target["labels"])
    tags = target["tags"]
    if bool((tags >= 0).any()):
        logits = scores["tag"].float().flatten(0, 1)  # (B·C, 4)
        total = total + F.cross_entropy(
            logits, tags.flatten(), weight=scores["tag_weights"].float(), ignore_index=-100
        )
    return total


def metric(scores: dict[str, torch.Tensor], target: dict[str, torch.Tensor]) -> dict[str, float]:
    """Pair F1 of the positive class (and its counts, to sum over batches), pair and tag accuracy."""
    labels = target["labels"]
    pred = scores["pair"].argmax(-1)
    tp = int(((pred == 1) & (labels == 1)).sum())
    fp = int(((pred == 1) & (labels == 0)).sum())
    fn = int(((pred == 0) & (labels == 1)).sum())
    n = labels.numel()
    tags = target["tags"]
    valid = tags >= 0
    n_tags = int(valid.sum())
    tag_hits = int(((scores["tag"].argmax(-1) == tags) & valid).sum())
    return {"f1": f1(tp, fp, fn), "acc": float((pred == labels).sum()) / n if n else 0.0, "n": float(n),
            "tp": float(tp), "fp": float(fp), "fn": float(fn),
            "tag_acc": tag_hits / n_tags if n_tags else 0.0, "n_tags": float(n_tags)}  # fmt: skip


def pair_offset(example: Example | ExampleArrays, query: int, candidate: int) -> int:
    """Rows from the candidate header down to the formula header (1-based cell ids), or columns
    when both sit on one row; positive = the candidate comes first."""
    q_row, q_col = example.cell_coords[query - 1]
    row, col = example.cell_coords[candidate - 1]
    return q_row - row if q_row != row else q_col - col


OBJECTIVE = Objective(
    name=NAME,
    config=NrpConfig,
    build=build,
    collate=collate,
    head=NumericalReferenceHead,
    loss=loss,
    metric=metric,
    order=5,
)
