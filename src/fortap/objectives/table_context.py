"""Table-context retrieval (`table_context`; TUTA's TCR, reference note §5.4).

A table's context is its title and notes (`Table.context`: from ingestion, HiTab titles). The
first `fields` texts are cut into snippets of `snippet_words` words and shuffled
(`split_context`); the first snippet is serialised after [CLS] and the rest are kept in
`example.meta["context_snippets"]` (a context of one snippet is, half the time, kept back as the
choice instead, so that short titles still yield true choices). Targets: up to `max_pairs` of those true snippets and as
many distractors (snippets of other tables, `TargetContext.negatives`) are appended after the
table as out-of-table items in shuffled order; each is labelled true (1) or distractor (0).
Classes are balanced, so chance accuracy is 50 %; a table with no true snippet left gets none.
True and distractor snippets are cut to the same `snippet_tokens`, unlike the reference, where
length alone gave the label away.

Head: the choice's [SEP] state c and the [CLS] state s; logit = w·tanh(W·[c; s; c⊙s]) + b.
Loss: binary cross-entropy. Letters: B batch, K choices per example, T, C, D.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from fortap.corpus.snippets import SNIPPETS, TableContextConfig
from fortap.encoding.example import Batch
from fortap.model.output import EncoderOutput
from fortap.objectives.base import Objective, TargetContext, hidden_size, padded
from fortap.objectives.draft import Draft, on_example, pieces

NAME = "table_context"


def build(draft: Draft, cfg: TableContextConfig, ctx: TargetContext) -> None:
    """Append true snippets and distractors; targets: `choices` (cell ids) and `labels` (1/0)."""
    rng = ctx.rng
    own = list(draft.meta.get(SNIPPETS, ()))
    positives = rng.sample(own, min(cfg.max_pairs, len(own)))
    negatives = distractors(own, len(positives), ctx)
    items = [(s, 1) for s in positives] + [(s, 0) for s in negatives]
    rng.shuffle(items)
    choices, labels = [], []
    for text, label in items:
        content = encoded(text, ctx)[: cfg.snippet_tokens - 1]  # (k, 5)
        if not len(content) or len(draft) + 1 + len(content) > ctx.max_tokens:
            continue
        choices.append(draft.append(content, ctx.vocab.sep, draft.free_slot(rng, cfg.tree_slots)))
        labels.append(label)
    draft.targets[NAME] = {"choices": choices, "labels": labels}


targets = on_example(build)  # the same on an `Example`, returning a new one


def distractors(own: list[str], k: int, ctx: TargetContext) -> list[str]:
    """At most `k` of `ctx.negatives` that are not `own`, drawn with `ctx.rng` as
    `rng.sample` draws from the list of the others, without building that list: the draws
    depend only on its length, and an index into it maps back past the `own` snippets."""
    if not own:  # k is 0: no draw
        return []
    index = ctx.memo.get("negative_index")
    if index is None:
        index = ctx.memo["negative_index"] = {}
        for i, s in enumerate(ctx.negatives):
            index.setdefault(s, []).append(i)
    skipped = sorted(i for s in set(own) for i in index.get(s, ()))
    others = len(ctx.negatives) - len(skipped)
    picks = ctx.rng.sample(range(others), min(others, k))
    out = []
    for pick in picks:
        for at in skipped:  # the pick-th of the others: step over each own snippet before it
            if at <= pick:
                pick += 1
        out.append(ctx.negatives[pick])
    return out


def encoded(text: str, ctx: TargetContext) -> np.ndarray:
    """(k, 5) the pieces of `ctx.vocab.encode_text(text)`, kept for the run (a snippet recurs
    on every visit)."""
    cache = ctx.memo.setdefault("snippet_pieces", {})
    if text not in cache:
        found = ctx.vocab.encode_text(text)
        cache[text] = pieces([t for t, _ in found], [n for _, n in found] if found else None)
    return cache[text]


def collate(values: list[dict | None], batch: Batch | None = None) -> dict[str, torch.Tensor]:
    """`choices`: (B, K) 0-based cell indices, `labels`: (B, K) float, `mask`: (B, K) bool."""
    values = [v or {"choices": [], "labels": []} for v in values]
    choices, mask = padded([[c - 1 for c in v["choices"]] for v in values], np.int64)  # (B, K)
    labels, _ = padded([v["labels"] for v in values], np.float32)  # (B, K)
    as_tensor = torch.from_numpy
    return {"choices": as_tensor(choices), "labels": as_tensor(labels), "mask": as_tensor(mask)}


class TableContextHead(nn.Module):
    """Does this appended snippet belong to the table? One logit per choice."""

    def __init__(self, encoder: nn.Module, cfg: TableContextConfig | None = None) -> None:
        super().__init__()
        D = hidden_size(encoder)
        self.combine = nn.Linear(3 * D, D)
        self.score = nn.Linear(D, 1)
        for linear in (self.combine, self.score):
            nn.init.normal_(linear.weight, std=0.02)
            nn.init.zeros_(linear.bias)

    def forward(self, output: EncoderOutput, batch: Batch) -> torch.Tensor:
        choices = batch.targets[NAME]["choices"]  # (B, K)
        states = output.token_states  # (B, T, D)
        sep = batch.sep_index.gather(1, choices)  # (B, K)
        choice = states.gather(1, sep.unsqueeze(-1).expand(-1, -1, states.shape[-1]))  # (B, K, D)
        cls = states[:, :1].expand_as(choice)  # (B, K, D)
        hidden = torch.tanh(self.combine(torch.cat([choice, cls, choice * cls], dim=-1)))
        return self.score(hidden).squeeze(-1)  # (B, K)


def loss(scores: torch.Tensor, target: dict[str, torch.Tensor]) -> torch.Tensor:
    mask = target["mask"]
    if not bool(mask.any()):
        return scores.sum() * 0.0
    return F.binary_cross_entropy_with_logits(scores.float()[mask], target["labels"][mask])


def metric(scores: torch.Tensor, target: dict[str, torch.Tensor]) -> dict[str, float]:
    mask = target["mask"]
    n = int(mask.sum())
    hits = (((scores > 0).float() == target["labels"]) & mask).sum().item() if n else 0
    return {"acc": hits / n if n else 0.0, "n": float(n)}


OBJECTIVE = Objective(
    name=NAME,
    config=TableContextConfig,
    build=build,
    collate=collate,
    head=TableContextHead,
    loss=loss,
    metric=metric,
    order=20,
)
