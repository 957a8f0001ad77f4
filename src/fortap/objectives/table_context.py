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

import torch
import torch.nn.functional as F
from torch import nn

from fortap.corpus.snippets import SNIPPETS, TableContextConfig
from fortap.encoding.example import Batch, Example
from fortap.model.output import EncoderOutput
from fortap.objectives.base import Objective, TargetContext, hidden_size
from fortap.objectives.edits import append_item, clone, free_slot

NAME = "table_context"


def targets(example: Example, cfg: TableContextConfig, ctx: TargetContext) -> Example:
    """Append true snippets and distractors; targets: `choices` (cell ids) and `labels` (1/0)."""
    rng = ctx.rng
    own = list(example.meta.get(SNIPPETS, ()))
    pool = [s for s in ctx.negatives if s not in own]
    positives = rng.sample(own, min(cfg.max_pairs, len(own)))
    negatives = rng.sample(pool, min(len(pool), len(positives)))  # balanced: chance is 50 %
    items = [(s, 1) for s in positives] + [(s, 0) for s in negatives]
    rng.shuffle(items)
    out = clone(example)
    choices, labels = [], []
    for text, label in items:
        pieces = ctx.vocab.encode_text(text)[: cfg.snippet_tokens - 1]
        if not pieces or len(out) + 1 + len(pieces) > ctx.max_tokens:
            continue
        out, cell = append_item(out, pieces, ctx.vocab.sep, free_slot(out, rng, cfg.tree_slots))
        choices.append(cell)
        labels.append(label)
    out.targets[NAME] = {"choices": choices, "labels": labels}
    return out


def collate(values: list[dict | None], batch: Batch | None = None) -> dict[str, torch.Tensor]:
    """`choices`: (B, K) 0-based cell indices, `labels`: (B, K) float, `mask`: (B, K) bool."""
    values = [v or {"choices": [], "labels": []} for v in values]
    K = max((len(v["choices"]) for v in values), default=0)
    choices = torch.zeros(len(values), K, dtype=torch.long)
    labels = torch.zeros(len(values), K)
    mask = torch.zeros(len(values), K, dtype=torch.bool)
    for b, target in enumerate(values):
        n = len(target["choices"])
        choices[b, :n] = torch.tensor(target["choices"], dtype=torch.long) - 1
        labels[b, :n] = torch.tensor(target["labels"], dtype=torch.float)
        mask[b, :n] = True
    return {"choices": choices, "labels": labels, "mask": mask}


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
    targets=targets,
    collate=collate,
    head=TableContextHead,
    loss=loss,
    metric=metric,
    order=20,
)
