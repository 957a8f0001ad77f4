"""Numerical reference prediction (`nrp`; ForTaP's NRP, reference note §6.4–6.5).

Built from a corpus sample's formula facts (`example.targets["formula"]`, see
`fortap.corpus.samples`), in two parts:

- **table-only**: pairs (formula cell's non-shared header, candidate header). Candidates are
  the referenced cells' non-shared headers (positive) and the other headers on the same side
  (negative), at most `negative_ratio` negatives per positive, drawn with `ctx.rng`. Head: a
  two-layer classifier over the two header cells' states,
  W2·GELU(W1·[h_c; h_f; h_c⊙h_f; h_c−h_f]) (c candidate, f formula header; the product and
  difference let one hidden layer compare the two).
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

import torch
import torch.nn.functional as F
from torch import nn

from fortap.corpus.samples import FORMULA_KEY
from fortap.encoding.example import NULL_POS, TOKEN_FIELDS, TREE_LEVELS, Batch, Example
from fortap.encoding.formats import DEFAULT_FORMAT
from fortap.model.output import EncoderOutput
from fortap.objectives.base import Objective, TargetContext, hidden_size
from fortap.objectives.edits import cell_content, cell_spans, clone
from fortap.text.numbers import NAN_FEATURES

NAME = "nrp"
TAGS = ("other", "formula_header", "formula_cell", "reference_header")


@dataclass(frozen=True)
class NrpConfig:
    negative_ratio: int = 3  # at most this many negatives per positive header
    text_rate: float = 0.5  # chance of the table-text variant (noisy prompt + cell tagging)
    min_noise: int = 1  # random vocabulary tokens in a prompt, at least
    max_noise: int = 10  # ... and at most
    other_weight: float = 0.1  # loss weight of the "other" tag

    def __post_init__(self) -> None:
        if self.negative_ratio < 0:
            raise ValueError(f"NrpConfig.negative_ratio must be >= 0, got {self.negative_ratio}")
        if not 0.0 <= self.text_rate <= 1.0:
            raise ValueError(f"NrpConfig.text_rate must be in [0, 1], got {self.text_rate}")
        if not 0 <= self.min_noise <= self.max_noise:
            raise ValueError("NrpConfig needs 0 <= min_noise <= max_noise")
        if self.other_weight < 0:
            raise ValueError(f"NrpConfig.other_weight must be >= 0, got {self.other_weight}")


def targets(example: Example, cfg: NrpConfig, ctx: TargetContext) -> Example:
    """Targets: `query`, `candidates`, `labels` (cell ids) and `tags` (per cell, or None)."""
    facts = example.targets.get(FORMULA_KEY)
    out = clone(example)
    target = {"query": 0, "candidates": [], "labels": [], "tags": None}
    if facts and facts["formula_header"] and facts["positives"]:
        positives = list(facts["positives"])
        negatives = list(facts["negatives"])
        negatives = ctx.rng.sample(
            negatives, min(len(negatives), cfg.negative_ratio * len(positives))
        )
        target.update(query=facts["formula_header"], candidates=positives + negatives,
                      labels=[1] * len(positives) + [0] * len(negatives))  # fmt: skip
    headers = [h for h in (facts["row_header"], facts["col_header"]) if h] if facts else []
    if facts and headers and ctx.rng.random() < cfg.text_rate:
        prompt = noisy_prompt(example, headers, cfg, ctx)
        if len(example) + len(prompt) <= ctx.max_tokens:
            out = insert_context(out, prompt)
            target["tags"] = cell_tags(example, facts, headers)
    out.targets[NAME] = target
    return out


def noisy_prompt(example: Example, headers: list[int], cfg: NrpConfig, ctx: TargetContext) -> list:
    """Random vocabulary tokens with each header's pieces inserted at a random place."""
    spans = cell_spans(example)
    noise = [
        (ctx.vocab.random_id(ctx.rng), NAN_FEATURES)
        for _ in range(ctx.rng.randint(cfg.min_noise, cfg.max_noise))
    ]
    parts: list[list] = [[piece] for piece in noise]
    for header in headers:
        parts.insert(ctx.rng.randint(0, len(parts)), cell_content(example, header, spans))
    return [piece for part in parts for piece in part]


def insert_context(example: Example, pieces: list) -> Example:
    """Append `pieces` to cell 0 ([CLS] + context), outside the table like any context token."""
    at = cell_spans(example)[0][1]
    null = (-1,) * TREE_LEVELS
    values = {
        "token_ids": [t for t, _ in pieces],
        "numbers": [tuple(n) for _, n in pieces],
        "in_cell_pos": [0] * len(pieces),
        "rows": [NULL_POS] * len(pieces),
        "cols": [NULL_POS] * len(pieces),
        "top_coords": [null] * len(pieces),
        "left_coords": [null] * len(pieces),
        "formats": [DEFAULT_FORMAT] * len(pieces),
        "cell_ids": [0] * len(pieces),
    }
    for name in TOKEN_FIELDS:
        getattr(example, name)[at:at] = values[name]
    return example


def cell_tags(example: Example, facts: dict, headers: list[int]) -> list[int]:
    """One tag per serialised cell (index k-1 for cell id k); see `TAGS`."""
    tags = [0] * len(example.cell_coords)
    for cell in facts["positives"]:
        tags[cell - 1] = 3
    for cell in headers:
        tags[cell - 1] = 1
    tags[facts["cell"] - 1] = 2
    return tags


def collate(values: list[dict | None], batch: Batch) -> dict[str, torch.Tensor]:
    """Pairs as flat (N,) tensors (`batch_index`, `query`, `candidate` 0-based cells, `labels`);
    `tags` (B, C) long, -100 where a cell has no tag."""
    rows, queries, cands, labels = [], [], [], []
    C = batch.sep_index.shape[1]
    tags = torch.full((len(values), C), -100, dtype=torch.long)
    for b, target in enumerate(values):
        if not target:
            continue
        n = len(target["candidates"])
        rows += [b] * n
        queries += [target["query"] - 1] * n
        cands += [c - 1 for c in target["candidates"]]
        labels += target["labels"]
        if target["tags"] is not None:
            tags[b, : len(target["tags"])] = torch.tensor(target["tags"], dtype=torch.long)
    as_long = lambda xs: torch.tensor(xs, dtype=torch.long)  # noqa: E731
    return {"batch_index": as_long(rows), "query": as_long(queries), "candidate": as_long(cands),
            "labels": as_long(labels), "tags": tags}  # fmt: skip


class NumericalReferenceHead(nn.Module):
    """Pair classifier over (candidate header, formula header) and a 4-way cell tagger."""

    def __init__(self, encoder: nn.Module, cfg: NrpConfig | None = None) -> None:
        super().__init__()
        D = hidden_size(encoder)
        self.pair = nn.Sequential(nn.Linear(4 * D, D), nn.GELU(), nn.Linear(D, 2))
        self.tag = nn.Sequential(nn.Linear(D, D), nn.Tanh(), nn.Linear(D, len(TAGS)))
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)
                nn.init.zeros_(module.bias)
        self.tag_weights = (cfg or NrpConfig()).other_weight

    def forward(self, output: EncoderOutput, batch: Batch) -> dict[str, torch.Tensor]:
        target = batch.targets[NAME]
        cells = output.cell_states  # (B, C, D)
        b = target["batch_index"]
        query = cells[b, target["query"]]  # (N, D)
        cand = cells[b, target["candidate"]]  # (N, D)
        pair = self.pair(torch.cat([cand, query, cand * query, cand - query], dim=-1))  # (N, 2)
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


def f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def baseline(values: list[dict | None]) -> dict[str, float]:
    """Trivial predictors on built targets (`targets[NAME]` of dev examples): the majority
    class's pair accuracy, the F1 of calling every pair positive, and the tag majority accuracy."""
    labels = [y for v in values if v for y in v["labels"]]
    tags = [t for v in values if v and v["tags"] is not None for t in v["tags"]]
    pos = sum(labels)
    majority = max(pos, len(labels) - pos) / len(labels) if labels else 0.0
    tag_major = max((tags.count(t) for t in set(tags)), default=0) / len(tags) if tags else 0.0
    return {
        "acc": majority,
        "f1": f1(pos, len(labels) - pos, 0),
        "tag_acc": tag_major,
        "n": float(len(labels)),
    }


def position_rule(examples: list[Example], window: int = 3) -> dict[str, float]:
    """A rule that reads positions only, as a reference point above the majority class: a
    candidate header is called referenced when it lies 1..`window` rows (or, for headers on the
    same row, columns) before the formula header, as the items just above a total do. Pair
    accuracy and F1 on the examples' built targets."""
    tp = fp = fn = right = 0
    for example in examples:
        target = example.targets.get(NAME)
        if not target or not target["candidates"]:
            continue
        q_row, q_col = example.cell_coords[target["query"] - 1]
        for cand, label in zip(target["candidates"], target["labels"], strict=True):
            row, col = example.cell_coords[cand - 1]
            gap = q_row - row if q_row != row else q_col - col
            said, label = 0 < gap <= window, bool(label)
            right += said == label
            tp += said and label
            fp += said and not label
            fn += label and not said
    pairs = right + fp + fn  # each pair is right, a false positive or a miss
    return {"acc": right / pairs if pairs else 0.0, "f1": f1(tp, fp, fn), "n": float(pairs)}


OBJECTIVE = Objective(
    name=NAME,
    config=NrpConfig,
    targets=targets,
    collate=collate,
    head=NumericalReferenceHead,
    loss=loss,
    metric=metric,
    order=5,
)
